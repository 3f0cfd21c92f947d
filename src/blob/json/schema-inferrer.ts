/**
 * Schema inference from sampled payloads: walks each JSON value and records, per field path, which types were
 * seen and how often. Types widen on conflict (integer -> bigint -> double -> varchar); ISO-8601 strings with a
 * zone are timestamps. The result proposes an `expand` block for the config file and the equivalent VAST
 * blob-expansion `arrow_schema` list (nested names flattened with `__`).
 */
import { isUtf8 } from 'node:buffer';
import { parseLosslessJson } from '../../core/lossless-json.js';
import { arrayElementType } from '../../core/type-family.js';

export type ScalarKind = 'boolean' | 'integer' | 'bigint' | 'double' | 'varchar' | 'timestamp(3)' | 'json';

interface FieldStats {
  path: (string | number)[];
  seen: number;
  kinds: Map<ScalarKind | `array(${string})`, number>;
}

export interface InferredField {
  name: string;
  path: string;
  /** The type every sampled value fits (widened on conflicts). */
  type: string;
  /** The type proposed for the expand block: the widened type, unless a small minority forced varchar. */
  proposed: string;
  /** How often each type was seen. */
  types: Record<string, number>;
  /** Events in which the field was present. */
  seen: number;
  /** seen / JSON payloads sampled. */
  presence: number;
}

export interface Inference {
  sampled: number;
  json: number;
  malformed: { notUtf8: number; notJson: number; notObject: number };
  fields: InferredField[];
  expand: Record<string, { path: string; type: string }>;
  arrow_schema: { name: string; field: { column_type: string; value_type?: string } }[];
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const INT32 = 2 ** 31;
/** A minority of values of another type (mistyped events) below this share does not widen the proposal. */
const MINORITY = 0.02;

function scalarKind(v: unknown): ScalarKind {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return 'double';
    return Math.abs(v) < INT32 ? 'integer' : 'bigint';
  }
  if (typeof v === 'string') {
    // parseLosslessJson hands integers of 16+ digits over as digit strings (a quoted string of 16+ digits
    // looks the same and is read as a number too: rare, and the expansion's try_cast copes either way).
    if (/^-?\d{16,}$/.test(v)) return BigInt(v) < 2n ** 63n && BigInt(v) >= -(2n ** 63n) ? 'bigint' : 'double';
    return ISO_INSTANT.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))) ? 'timestamp(3)' : 'varchar';
  }
  return 'json';
}

const RANK: ScalarKind[] = ['integer', 'bigint', 'double'];

/** The narrowest type that holds both. */
export function widen(a: string, b: string): string {
  if (a === b) return a;
  const ia = RANK.indexOf(a as ScalarKind);
  const ib = RANK.indexOf(b as ScalarKind);
  if (ia >= 0 && ib >= 0) return RANK[Math.max(ia, ib)]!;
  const ea = arrayElementType(a);
  const eb = arrayElementType(b);
  if (ea !== null && eb !== null) return `array(${widen(ea, eb)})`;
  return a === 'json' || b === 'json' || ea !== null || eb !== null ? 'json' : 'varchar';
}

export class SchemaInferrer {
  private readonly fields = new Map<string, FieldStats>();
  sampled = 0;
  json = 0;
  readonly malformed = { notUtf8: 0, notJson: 0, notObject: 0 };

  add(value: Buffer | null): void {
    this.sampled++;
    if (!value || !isUtf8(value)) {
      this.malformed.notUtf8++;
      return;
    }
    let doc: unknown;
    try {
      doc = parseLosslessJson(value.toString('utf8'));
    } catch {
      this.malformed.notJson++;
      return;
    }
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
      this.malformed.notObject++;
      return;
    }
    this.json++;
    this.walk(doc as Record<string, unknown>, []);
  }

  private walk(obj: Record<string, unknown>, prefix: string[]): void {
    for (const [k, v] of Object.entries(obj)) {
      const path = [...prefix, k];
      if (v === null) continue;
      if (typeof v === 'object' && !Array.isArray(v)) {
        if (path.length < 8) this.walk(v as Record<string, unknown>, path);
        else this.note(path, 'json');
        continue;
      }
      if (Array.isArray(v)) {
        let el = '';
        for (const x of v) {
          if (x === null) continue;
          const k = typeof x === 'object' ? 'json' : scalarKind(x);
          // A JSON string cannot be cast to a timestamp inside an array: keep such elements as text.
          const k2 = k === 'timestamp(3)' ? 'varchar' : k;
          el = el ? widen(el, k2) : k2;
        }
        this.note(path, el ? (`array(${el})` as const) : 'json');
        continue;
      }
      this.note(path, scalarKind(v));
    }
  }

  private note(path: string[], kind: FieldStats['kinds'] extends Map<infer K, number> ? K : never): void {
    const key = JSON.stringify(path);
    let f = this.fields.get(key);
    if (!f) this.fields.set(key, (f = { path, seen: 0, kinds: new Map() }));
    f.seen++;
    f.kinds.set(kind, (f.kinds.get(kind) ?? 0) + 1);
  }

  /** `reserved`: names already taken (the table's own columns), so proposed names never shadow them. */
  result(reserved: readonly string[] = []): Inference {
    const fields: InferredField[] = [];
    const names = new Set<string>(reserved);
    for (const f of this.fields.values()) {
      const kinds = [...f.kinds.entries()].sort((a, b) => b[1] - a[1]);
      const type = kinds.map(([k]) => k as string).reduce(widen);
      // Mistyped events (a string where numbers are) become NULL in an expansion; a few should not turn
      // a numeric field into varchar.
      const major = kinds
        .filter(([, n]) => n / f.seen >= MINORITY)
        .map(([k]) => k as string)
        .reduce(widen);
      let name = f.path
        .map((p) => String(p).replace(/[^A-Za-z0-9_]/g, '_'))
        .join('__')
        .replace(/^(?=\d)/, '_');
      while (names.has(name)) name += '_';
      names.add(name);
      fields.push({
        name,
        path: jsonPathText(f.path),
        type,
        proposed: major,
        types: Object.fromEntries(kinds),
        seen: f.seen,
        presence: this.json ? Math.round((f.seen / this.json) * 10_000) / 10_000 : 0,
      });
    }
    fields.sort((a, b) => a.path.localeCompare(b.path));
    return {
      sampled: this.sampled,
      json: this.json,
      malformed: this.malformed,
      fields,
      // JSON numbers have no width: an id that fits 32 bits today may not tomorrow, so integers expand as bigint.
      expand: Object.fromEntries(
        fields.map((f) => [f.name, { path: f.path, type: f.proposed === 'integer' ? 'bigint' : f.proposed }]),
      ),
      arrow_schema: fields.map((f) => ({ name: f.name, field: arrowField(f.proposed) })),
    };
  }
}

/** `$.a.b` where keys are plain, `$["odd key"]` where they are not. */
export function jsonPathText(path: (string | number)[]): string {
  return (
    '$' +
    path
      .map((k) =>
        typeof k === 'number' ? `[${k}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`,
      )
      .join('')
  );
}

/** VAST blob-expansion column types (Arrow-ish names). Timestamps stay strings: VAST's timestamp names are not documented. */
const ARROW: Record<string, string> = {
  boolean: 'bool',
  integer: 'int32',
  bigint: 'int64',
  double: 'double',
  varchar: 'string',
  'timestamp(3)': 'string',
  json: 'string',
};

function arrowField(type: string): { column_type: string; value_type?: string } {
  const element = arrayElementType(type);
  if (element !== null) return { column_type: 'list', value_type: ARROW[element] ?? 'string' };
  return { column_type: ARROW[type] ?? 'string' };
}
