/**
 * Named cursors for scheduled batch loaders (API.md "Cursors for scheduled batch loaders"): the
 * whole lifecycle of a cursor (create, batch, commit, seek, lag, delete), each step keeping the invariants the
 * others rely on (generation, pending batch, position); a batch's plan and summary are in cursor-batches.ts.
 *
 * A position is (broker time T, skip k): all events before T are consumed, plus the first k events at T in the
 * topic's total row order (time, then every column), so a batch that ends inside a run of tied or identical
 * events resumes inside it. A batch reads events at or after the position and strictly before U = now - settle,
 * the time before which events are assumed visible; U is fixed when the batch is first handed out and kept
 * with the pending batch, so re-reading an uncommitted batch returns the same rows and the same token.
 */
import { randomUUID } from 'node:crypto';
import { keyFraming } from '../blob/avro/key-framing.js';
import { ApiError } from '../core/errors.js';
import { DEFAULT_SETTLE } from '../config/config.js';
import { topicModel } from '../read/topic-catalog.js';
import type { RowScope } from '../query/tree/read-policy.js';
import { batchUntil, type PlannedRead } from '../query/planner.js';
import type { Caller } from '../query/tree/read-policy.js';
import { epochOfTrinoTimestamp } from '../core/trino-timestamp.js';
import { parseDuration } from '../query/request/time.js';
import type { Keyring } from '../core/signed-token.js';
import { BatchTokens, batchId, type BatchBody } from './batch-token.js';
import type { CursorRecord, CursorStore, HistoryEntry, Position } from './cursor-store.js';
import { describe, positionAt, samePosition } from './positions.js';
import type { StatefulCaller } from '../access/stateful-caller.js';
import type { CursorServiceParts } from './cursor-parts.js';
import { administeredCursor, cursorKey, ownCursor } from './cursor-keys.js';
import {
  countLag,
  newBatch,
  planBatchRead,
  type BatchLimit,
  type CursorDefinition,
  type CursorTopic,
  type PendingBatch,
} from './cursor-batches.js';

export class CursorService {
  private readonly tokens: BatchTokens;

  /** `keys`: the keyring batch tokens are signed with, or a bare secret (TOPICGATE_CURSOR_SECRET). */
  constructor(
    private readonly services: CursorServiceParts,
    private readonly store: CursorStore,
    keys: Keyring | string,
  ) {
    this.tokens = new BatchTokens(keys);
  }

  private async topic(id: string): Promise<CursorTopic> {
    const model = topicModel(await this.services.catalog.get(id), this.services.config);
    if (!model.time)
      throw new ApiError('TG_BAD_REQUEST', `topic ${id} has no timestamp_broker: cursors need topic tables`);
    // An Avro key: the cursor's filters on it compare framed bytes (blob/avro/key-framing.ts), as reads do.
    const framing = await keyFraming(id, this.services.config.topics[id]?.key, this.services.registry);
    return { model, framing };
  }

  /**
   * The caller's cursor of this name (cursor-keys.ts), or for an admin another principal's on a topic it
   * administers; the same 404 as a missing one otherwise. The record's `name` is its store key.
   */
  async get(name: string, caller: StatefulCaller): Promise<CursorRecord> {
    const c = (await ownCursor(this.store, name, caller)) ?? (await administeredCursor(this.store, name, caller));
    if (!c) throw notFound(name);
    caller.authorize(c.topic);
    return c;
  }

  /** Creates a cursor; the same definition again is a no-op, a different one a 409. */
  async create(
    name: string,
    input: Partial<CursorDefinition> & { topic: string },
    caller: StatefulCaller,
  ): Promise<{ created: boolean; record: CursorRecord }> {
    caller.authorize(input.topic);
    const def: CursorDefinition = {
      topic: input.topic,
      start: input.start ?? 'earliest',
      settle: input.settle ?? DEFAULT_SETTLE,
    };
    if (input.filter !== undefined) def.filter = input.filter;
    if (input.select !== undefined) def.select = input.select;
    const topic = await this.topic(def.topic);
    parseDuration(def.settle, 'settle');
    const position = positionAt(def.start, 'start');
    // Validates filter, select and the guardrail.
    this.plan(topic, def, position, Date.now(), { asked: 1 }, caller.rows(topic.model));
    const canonical = JSON.stringify(def);
    // Only the caller's own names: another principal's cursor of this name is another cursor, never met here.
    const existing = await ownCursor(this.store, name, caller);
    if (existing) return this.same(name, existing, canonical);
    const r = await this.store.create({
      name: cursorKey(name, caller.id),
      topic: def.topic,
      definition: canonical,
      position,
      generation: 0,
      pending: null,
      owner: caller.id,
      incarnation: randomUUID(),
    });
    return r.created ? r : this.same(name, r.record, canonical);
  }

  /** The caller's existing cursor again: the same definition is a no-op, another one a 409 showing it. */
  private same(name: string, existing: CursorRecord, canonical: string) {
    if (existing.definition !== canonical) {
      throw new ApiError('TG_CURSOR_CONFLICT', `cursor ${JSON.stringify(name)} exists with another definition`, {
        existing: JSON.parse(existing.definition),
      });
    }
    return { created: false, record: existing };
  }

  definition(c: CursorRecord): CursorDefinition {
    return JSON.parse(c.definition) as CursorDefinition;
  }

  /**
   * The query for a batch from `from` to at most `untilMs`, ordered totally by broker time first. The planner may
   * end it earlier (the residual-scan guardrail): the plan's window says where it ends.
   */
  plan(
    topic: CursorTopic,
    def: CursorDefinition,
    from: Position,
    untilMs: number,
    limit: BatchLimit,
    rows: RowScope,
    caller?: Caller,
  ): PlannedRead {
    return planBatchRead(this.services.config, { topic, def, limit, rows, caller }, from, untilMs);
  }

  /** The batch to hand out: the pending one if it still applies, else a new one (summarised in Trino first). */
  async batch(
    name: string,
    limit: number | 'all' | undefined,
    caller: StatefulCaller,
  ): Promise<{ cursor: CursorRecord; pending: PendingBatch; plan: PlannedRead }> {
    const cursor = await this.get(name, caller);
    const def = this.definition(cursor);
    const topic = await this.topic(def.topic);
    const rowScope = caller.rows(topic.model);
    const old = this.pendingOf(cursor);
    // An uncommitted batch is handed out again unchanged, whatever limit is asked now: a loader that lands by
    // token must see the same rows under the same token, or it would land overlapping batches twice. An empty
    // batch is not kept: the next read looks for new events.
    if (old && old.rows > 0 && old.generation === cursor.generation && samePosition(old.from, cursor.position)) {
      const again = this.plan(
        topic,
        def,
        old.from,
        epochOfTrinoTimestamp(old.until),
        { asked: limit, pending: old.limit },
        rowScope,
        caller,
      );
      return { cursor, pending: old, plan: again };
    }
    const from = cursor.position;
    const settledMs = Date.now() - parseDuration(def.settle, 'settle');
    const { plan, rows, to } = await newBatch(
      (untilMs) => this.plan(topic, def, from, untilMs, { asked: limit }, rowScope, caller),
      caller.trino,
      this.services.config.queryTimeoutMs,
      from,
      settledMs,
    );
    const until = batchUntil(plan);
    const body: BatchBody = { c: name, i: cursor.incarnation, g: cursor.generation, f: from, t: to, u: until, n: rows };
    const sealed = this.tokens.seal(body);
    const pending: PendingBatch = {
      generation: cursor.generation,
      ...sealed,
      from,
      to,
      until,
      rows,
      limit: plan.tree.limit === Infinity ? 'all' : plan.tree.limit,
    };
    if (!(await this.store.setPending(cursor.name, cursor.generation, JSON.stringify(pending)))) {
      throw new ApiError(
        'TG_STALE_BATCH',
        `cursor ${JSON.stringify(name)} moved while the batch was prepared; read again`,
      );
    }
    return { cursor, pending, plan };
  }

  /** Moves the cursor to the end of the batch; idempotent; a batch not starting at the position is a 409. */
  async commit(
    name: string,
    token: string,
    caller: StatefulCaller,
  ): Promise<{ committed: boolean; position: Position; rows: number }> {
    const body = this.tokens.open(token);
    if (body.c !== name)
      throw new ApiError('TG_BAD_BATCH', `batch: the token belongs to cursor ${JSON.stringify(body.c)}`);
    const cursor = await this.get(name, caller);
    // A token of an earlier cursor of this name (deleted, then created again) never moves this one.
    if (body.i !== cursor.incarnation)
      throw new ApiError('TG_BAD_BATCH', 'batch: the token belongs to an earlier cursor of this name');
    const id = batchId(token);
    const key = cursor.name;
    if (await this.store.findBatch(key, id)) return { committed: false, position: cursor.position, rows: body.n };
    if (body.n === 0 && samePosition(body.f, body.t) && samePosition(body.f, cursor.position))
      return { committed: false, position: cursor.position, rows: 0 };
    const stale = () =>
      new ApiError(
        'TG_STALE_BATCH',
        `batch: it starts at ${describe(body.f)} but the cursor is at ${describe(cursor.position)}`,
        {
          position: cursor.position,
        },
      );
    if (body.g !== cursor.generation || !samePosition(body.f, cursor.position)) throw stale();
    const entry: HistoryEntry = {
      name: key,
      batchId: id,
      from: body.f,
      to: body.t,
      rows: body.n,
      committedAt: new Date().toISOString(),
    };
    if (await this.store.commit(key, body.g, body.f, body.t, entry))
      return { committed: true, position: body.t, rows: body.n };
    if (await this.store.findBatch(key, id)) return { committed: false, position: body.t, rows: body.n };
    throw stale();
  }

  async seek(name: string, to: string, caller: StatefulCaller): Promise<Position> {
    const position = positionAt(to, 'to');
    const cursor = await this.get(name, caller);
    const def = this.definition(cursor);
    const topic = await this.topic(def.topic);
    this.plan(topic, def, position, Date.now(), { asked: 1 }, caller.rows(topic.model)); // the guardrail may refuse it
    if (!(await this.store.seek(cursor.name, position))) throw notFound(name);
    return position;
  }

  /** Events after the position that are visible now (up to now - settle), and how far behind the position is. */
  async lag(
    cursor: CursorRecord,
    caller: StatefulCaller,
  ): Promise<{ events: number; ms: number | null; countedUntil?: string }> {
    const def = this.definition(cursor);
    const topic = await this.topic(def.topic);
    const settled = Date.now() - parseDuration(def.settle, 'settle');
    const plan = this.plan(topic, def, cursor.position, settled, { asked: 1 }, caller.rows(topic.model), caller);
    return countLag(plan, cursor.position, settled, caller.trino, this.services.config.queryTimeoutMs);
  }

  async delete(name: string, caller: StatefulCaller): Promise<void> {
    const cursor = await this.get(name, caller);
    if (!(await this.store.delete(cursor.name))) throw notFound(name);
  }

  /** Committed batches, newest first; entries older than the retention are pruned first. */
  async history(name: string, limit: number, caller: StatefulCaller): Promise<HistoryEntry[]> {
    const cursor = await this.get(name, caller);
    await this.store.pruneHistory(new Date(Date.now() - this.services.config.historyRetentionMs).toISOString());
    return this.store.history(cursor.name, limit);
  }

  /**
   * The pending batch, unless its token can no longer be committed (signed in an older layout, or by a key since
   * retired): handing that out again would leave the loader stuck on a batch it can never commit, so a new one is
   * prepared from the committed position instead.
   */
  private pendingOf(cursor: CursorRecord): PendingBatch | null {
    const pending = cursor.pending ? (JSON.parse(cursor.pending) as PendingBatch) : null;
    return pending && this.tokens.valid(pending.token) ? pending : null;
  }
}

function notFound(name: string): ApiError {
  return new ApiError('TG_CURSOR_NOT_FOUND', `no cursor ${JSON.stringify(name)}`);
}
