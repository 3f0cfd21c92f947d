/**
 * The load store: load definitions, positions, run history and target claims (API.md "Loads run by Trino"), kept in
 * the cursor store's database (TOPICGATE_STATE_URL), in tables of their own. SQLite (one instance) or PostgreSQL
 * (several instances); both implement this port and pass the same contract test. A position moves only by a
 * compare-and-set from the position the run started at, and one run of a load at a time holds its lock.
 */

/**
 * A target table's claim: the load it belongs to (null once that load was deleted: the table stays its owner's,
 * and only a load of the same owner may take it again), and whether the table was made by it. No two loads hold
 * one target, on any instance sharing the store.
 */
export interface TargetClaim {
  /** `catalog.schema.table`. */
  target: string;
  /** The store key of the load holding it; null: its load was deleted. */
  load: string | null;
  /** The principal id of the load that claimed it. */
  owner: string;
  /** The table was made by a run of its load (set just before that run creates it). */
  created: boolean;
  claimedAt: string;
}

/** What a new load claims: its target, and whether Trino already has that table. */
export interface ClaimRequest {
  target: string;
  /** An existing table can only be taken back by a load of the owner whose deleted load claimed it. */
  tableExists: boolean;
}

/** A load: its definition and its position (the end of the last committed window, Trino timestamp text). */
export interface LoadRecord {
  name: string;
  topic: string;
  /** The definition as canonical JSON text (topic, select, where, target, start, settle). */
  definition: string;
  /** Every event before this broker time is in the target; null: nothing yet (the window starts at `start`). */
  position: string | null;
  /** The principal that defined it: its runs read the topic with that principal's row policies. */
  owner: string;
  createdAt: string;
  updatedAt: string;
}

export type RunOutcome = 'running' | 'committed' | 'failed';

/** One run: its window [from, until), what it did in Trino, and how it ended. */
export interface LoadRun {
  name: string;
  runId: string;
  /** Trino timestamp text; null: from the beginning of the topic. */
  from: string | null;
  until: string;
  /** Rows inserted (known once the INSERT has finished). */
  rows: number | null;
  /** Trino query ids of the run's statements, in order. */
  queryIds: string[];
  startedAt: string;
  finishedAt: string | null;
  outcome: RunOutcome;
  /** The error code (and message) of a failed run. */
  error: string | null;
}

/** A run's hold on its load: no other run of the load, on any instance sharing the store, until released. */
export interface LoadLock {
  release(): Promise<void>;
}

export interface LoadStore {
  /** Creates the tables on first use. */
  init(): Promise<void>;
  get(name: string): Promise<LoadRecord | null>;
  /** Loads stored under this name or with it as their key's name, whoever owns them. */
  named(name: string): Promise<LoadRecord[]>;
  /**
   * Inserts the load with its target's claim, in one transaction, unless a load of that key exists (returned, and
   * nothing claimed). `taken` when the target is another load's, or is a table that no load of this owner claimed.
   */
  create(
    record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>,
    claim: ClaimRequest,
  ): Promise<{ created: boolean; record: LoadRecord } | { taken: true }>;
  /** The claim on a target, if any load ever claimed it. */
  claimOf(target: string): Promise<TargetClaim | null>;
  /** Sets whether the target was made by the load holding it; false when `key` no longer holds it. */
  markCreated(target: string, key: string, created: boolean): Promise<boolean>;
  /** Deletes the load and its runs; its target's claim stays its owner's, held by no load. False if none. */
  delete(name: string): Promise<boolean>;
  /** Writes a run (inserted, or replaced by its id). */
  saveRun(run: LoadRun): Promise<void>;
  /** Moves the position from `expected` to `next` and writes the run, in one transaction; false if it moved first. */
  commit(name: string, expected: string | null, next: string, run: LoadRun): Promise<boolean>;
  /** Runs, newest first. */
  runs(name: string, limit: number): Promise<LoadRun[]>;
  /** The load's run lock, or null when another run holds it. */
  lock(name: string): Promise<LoadLock | null>;
  close(): Promise<void>;
}
