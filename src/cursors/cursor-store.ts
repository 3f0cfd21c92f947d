/**
 * The cursor state store: where named cursors keep their position. SQLite (one instance, a file) or PostgreSQL
 * (several gateway instances behind a load balancer). Both implement this port and pass the same test suite.
 * Every position change is a compare-and-set, so concurrent commits of one cursor cannot both win.
 */

/** A position in a topic: every event before `ts` is consumed, plus the first `skip` events at `ts`
 * (in the total order of the topic's rows). `ts` null means the beginning of the topic. */
export interface Position {
  ts: string | null;
  skip: number;
}

export interface CursorRecord {
  name: string;
  topic: string;
  /** The definition as canonical JSON text (topic, start, filter, select, settle). */
  definition: string;
  position: Position;
  /** Bumped by seek: tokens of an earlier generation can no longer be committed. */
  generation: number;
  /** The batch handed out and not yet committed, as JSON text (re-reads return it unchanged). */
  pending: string | null;
  /** The principal that created it, by id (only it, or an admin of its topic, may use it; cursor-keys.ts). */
  owner: string;
  /** Random id of this cursor's creation: batch tokens of a deleted-and-recreated cursor of the name are refused. */
  incarnation: string;
  createdAt: string;
  updatedAt: string;
}

export interface HistoryEntry {
  name: string;
  /** The batch token's id (stable for a batch). */
  batchId: string;
  from: Position;
  to: Position;
  rows: number;
  committedAt: string;
}

export interface CursorStore {
  /** Creates the schema on first use. */
  init(): Promise<void>;
  get(name: string): Promise<CursorRecord | null>;
  /**
   * Every cursor stored under `name` itself or under a key that starts with `name/` (a name keyed by its owner,
   * cursor-keys.ts), in key order: how an admin finds other principals' cursors by name.
   */
  named(name: string): Promise<CursorRecord[]>;
  /** Inserts unless a cursor of that name exists; returns the stored record either way. */
  create(record: Omit<CursorRecord, 'createdAt' | 'updatedAt'>): Promise<{ created: boolean; record: CursorRecord }>;
  /** Sets the pending batch if the generation still matches; false otherwise. */
  setPending(name: string, generation: number, pending: string | null): Promise<boolean>;
  /**
   * Moves the position from `expected` to `next` and records the batch in the history, in one transaction,
   * only if the cursor is still at `expected` in `generation`. False when someone else moved it first.
   */
  commit(name: string, generation: number, expected: Position, next: Position, entry: HistoryEntry): Promise<boolean>;
  /** Sets the position, bumps the generation and clears the pending batch. False if there is no such cursor. */
  seek(name: string, position: Position): Promise<boolean>;
  /** Deletes the cursor and its history. False if there was none. */
  delete(name: string): Promise<boolean>;
  /** Committed batches, newest first. */
  history(name: string, limit: number): Promise<HistoryEntry[]>;
  findBatch(name: string, batchId: string): Promise<HistoryEntry | null>;
  /** Forgets history entries committed before the given instant (ISO text). */
  pruneHistory(before: string): Promise<number>;
  /** One round trip to the store (readiness); rejects when it cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
