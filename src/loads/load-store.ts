/**
 * The load store: load definitions, positions and run history (API.md "Loads run by Trino"), kept in the cursor
 * store's database (TOPICGATE_STATE_URL), in tables of their own. SQLite (one instance) or PostgreSQL (several
 * instances); both implement this port and pass the same contract test. A position moves only by a compare-and-set
 * from the position the run started at, and one run of a load at a time holds its lock.
 */

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
  /** Inserts unless a load of that name exists; returns the stored record either way. */
  create(record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>): Promise<{ created: boolean; record: LoadRecord }>;
  /** Deletes the load and its runs (the target table stays). False if there was none. */
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
