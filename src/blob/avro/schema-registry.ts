/**
 * A client of a Confluent-compatible Schema Registry (API.md "Schema Registry payloads"): schemas by id, cached
 * (a registry never changes what an id names), and a subject's versions, never cached (the latest one moves). The
 * cache holds at most `maxCachedSchemas` ids, the least recently used going first, and remembers an id the registry
 * does not know for `unknownIdTtlMs` only (it may be registered later): events framed with ids of their own cannot
 * grow the process, and each unknown id costs one request per that time at most. At most
 * `maxConcurrent` requests are in flight; callers asking for the same id share one request. Any failure is a 502
 * TG_SCHEMA_REGISTRY that names what was asked, never a credential; a failed lookup is not cached, so the next
 * request tries again (recovery without a restart).
 */
import { readFileSync } from 'node:fs';
import { ApiError } from '../../core/errors.js';
import type { SchemaRegistrySettings } from '../../config/registry-config.js';

export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

export interface RegisteredSchema {
  id: number;
  schemaType: SchemaType;
  /** The schema text as registered. */
  schema: string;
}

export interface SubjectVersion extends RegisteredSchema {
  subject: string;
  version: number;
}

/** What the decoder needs of a registry: tests may give a fake, the gateway gives SchemaRegistry. */
export interface RegistryPort {
  /** The schema with this id, or null when the registry knows no such id (a 404). */
  byId(id: number): Promise<RegisteredSchema | null>;
  /** True when the schema of this id is at hand (asking for it makes no request). */
  isKnown(id: number): boolean;
  /** A version of a subject ('latest' or a number), or null when the subject or version does not exist. */
  version(subject: string, version: number | 'latest'): Promise<SubjectVersion | null>;
  /** Every version number of a subject (empty when the subject does not exist). */
  versions(subject: string): Promise<number[]>;
}

const NOT_FOUND = Symbol('not found');

/** A cached lookup: the schema (null: unknown), whether it was found, until when an unknown id is believed unknown. */
interface Cached {
  schema: Promise<RegisteredSchema | null>;
  known?: boolean;
  unknownUntil?: number;
}

export class SchemaRegistry implements RegistryPort {
  /** In use order, least recent first (a Map keeps insertion order; a hit is moved to the end). */
  private readonly ids = new Map<number, Cached>();
  private readonly waiting: (() => void)[] = [];
  private inFlight = 0;
  private readonly authorization: string | undefined;

  constructor(private readonly settings: SchemaRegistrySettings) {
    if (settings.username && settings.passwordFile) {
      const password = (readFileSync(settings.passwordFile, 'utf8').split('\n')[0] ?? '').trim();
      this.authorization = `Basic ${Buffer.from(`${settings.username}:${password}`).toString('base64')}`;
    }
  }

  byId(id: number, now = Date.now()): Promise<RegisteredSchema | null> {
    const hit = this.ids.get(id);
    if (hit && (hit.unknownUntil === undefined || hit.unknownUntil > now)) {
      this.ids.delete(id);
      this.ids.set(id, hit);
      return hit.schema;
    }
    const schema = this.get(`/schemas/ids/${id}`, `schema id ${id}`).then((body) =>
      body === NOT_FOUND ? null : registered(id, body),
    );
    const entry: Cached = { schema };
    this.remember(id, entry);
    schema.then(
      // An unknown id for a while only: a producer may register it after framing its first events.
      (s) => {
        if (s === null) entry.unknownUntil = Date.now() + this.settings.unknownIdTtlMs;
        else entry.known = true;
      },
      // A failure is not remembered: the registry may be back for the next request.
      () => void (this.ids.get(id) === entry && this.ids.delete(id)),
    );
    return schema;
  }

  isKnown(id: number): boolean {
    return this.ids.get(id)?.known === true;
  }

  /** Ids cached now (known and unknown). */
  get cached(): number {
    return this.ids.size;
  }

  private remember(id: number, entry: Cached): void {
    this.ids.delete(id);
    this.ids.set(id, entry);
    for (const oldest of this.ids.keys()) {
      if (this.ids.size <= this.settings.maxCachedSchemas) break;
      this.ids.delete(oldest);
    }
  }

  async version(subject: string, version: number | 'latest'): Promise<SubjectVersion | null> {
    const what = `version ${version} of subject ${subject}`;
    const body = await this.get(`/subjects/${encodeURIComponent(subject)}/versions/${version}`, what);
    if (body === NOT_FOUND) return null;
    const b = body as { id?: unknown; version?: unknown };
    if (typeof b.id !== 'number' || typeof b.version !== 'number') throw malformed(what);
    const s = registered(b.id, body);
    // Seed the id cache: the same schema is what the id names.
    if (this.ids.get(s.id)?.unknownUntil === undefined)
      this.remember(s.id, { schema: Promise.resolve(s), known: true });
    return { ...s, subject, version: b.version };
  }

  async versions(subject: string): Promise<number[]> {
    const what = `the versions of subject ${subject}`;
    const body = await this.get(`/subjects/${encodeURIComponent(subject)}/versions`, what);
    if (body === NOT_FOUND) return [];
    if (!Array.isArray(body) || !body.every((v) => Number.isInteger(v))) throw malformed(what);
    return body as number[];
  }

  private async get(path: string, what: string): Promise<unknown> {
    await this.acquire();
    try {
      const res = await fetch(`${this.settings.url}${path}`, {
        headers: {
          accept: 'application/vnd.schemaregistry.v1+json, application/json',
          ...(this.authorization ? { authorization: this.authorization } : {}),
        },
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      }).catch((err: unknown) => {
        const timedOut = err instanceof Error && err.name === 'TimeoutError';
        throw registryError(what, timedOut ? 'did not answer in time' : 'cannot be reached');
      });
      if (res.status === 404) {
        await res.body?.cancel();
        return NOT_FOUND;
      }
      if (!res.ok) {
        await res.body?.cancel();
        const why = res.status === 401 || res.status === 403 ? 'refused the credentials' : `answered ${res.status}`;
        throw registryError(what, why);
      }
      return await res.json().catch(() => {
        throw malformed(what);
      });
    } finally {
      this.release();
    }
  }

  private async acquire(): Promise<void> {
    if (this.inFlight < this.settings.maxConcurrent) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }
}

function registered(id: number, body: unknown): RegisteredSchema {
  const b = body as { schema?: unknown; schemaType?: unknown };
  if (typeof b.schema !== 'string') throw malformed(`schema id ${id}`);
  const t = b.schemaType ?? 'AVRO';
  const schemaType: SchemaType = t === 'JSON' || t === 'PROTOBUF' ? t : 'AVRO';
  return { id, schemaType, schema: b.schema };
}

function registryError(what: string, why: string): ApiError {
  return new ApiError(
    'TG_SCHEMA_REGISTRY',
    `the Schema Registry ${why} (asked for ${what})`,
    { asked: what },
    undefined,
    5,
  );
}

const malformed = (what: string) => registryError(what, 'sent an answer that is not a schema');
