/**
 * The Trino port: everything the gateway asks of Trino. Catalog, reads, routes and cursors depend on this
 * interface only; the composition root (app.ts) picks the implementation (http-trino.ts), and unit tests use an
 * in-memory fake of it.
 */
import type { ResultColumn, ResultStream } from '../core/result-stream.js';
import { rowValues } from '../core/text-rows.js';

export interface QueryOptions {
  catalog?: string;
  schema?: string;
  /**
   * The Trino user the query runs as (`X-Trino-User`); the connection's own user when absent. When the
   * connection authenticates, Trino's impersonation rules decide whether its user may act as this one.
   */
  user?: string;
  /** Added to the connection's own client tags (`X-Trino-Client-Tags`), for resource-group selectors. */
  clientTags?: readonly string[];
  /** Extra Trino session properties. */
  session?: Readonly<Record<string, string>>;
  /** Aborting cancels the query in Trino. */
  signal?: AbortSignal;
  /**
   * The batches may come as the JSON text Trino sent (core/text-rows.ts) rather than parsed: for reads whose rows
   * the gateway passes on without computing on them (the planner's `rowText`).
   */
  rowText?: boolean;
  /** Sets Trino's query_max_run_time and the gateway's own deadline. */
  timeoutMs?: number;
  /**
   * Told when query() rejects at once for an abort while its POST is in flight, before Trino has named the query:
   * the promise resolves once the query Trino registered meanwhile has been cancelled (query slots wait for it).
   */
  cancelling?: (cancelled: Promise<void>) => void;
}

export interface TrinoResult extends ResultStream {
  /** Cancels the query in Trino if it is still running; safe to call twice. */
  cancel(): Promise<void>;
}

export interface TrinoRows {
  columns: readonly ResultColumn[];
  rows: unknown[][];
}

/** What Trino's `/v1/info` says: whether it answers and has finished starting. */
export interface TrinoInfo {
  starting: boolean;
  nodeVersion?: { version: string };
}

export interface TrinoPort {
  /**
   * Starts a query; resolves once Trino has said which columns it returns (or finished). Rejects with
   * TrinoQueryError (Trino's in-band error), TrinoUnavailableError (unreachable, or an HTTP error),
   * TrinoRefusedError (HTTP 401: the gateway's credentials; 403) or QueryCancelledError (aborted, or past the deadline). The batches throw the same errors later on; the next
   * Trino page is fetched only when the consumer pulls, and stopping early cancels the query.
   */
  query(sql: string, opts?: QueryOptions): Promise<TrinoResult>;
  /** Runs a small query to completion and returns all rows (metadata lookups, loaders). */
  all(sql: string, opts?: QueryOptions): Promise<TrinoRows>;
  /** Cancels a query by id; never throws. */
  cancel(queryId: string): Promise<void>;
  /** Trino's `/v1/info`; rejects with TrinoUnavailableError. */
  info(signal?: AbortSignal): Promise<TrinoInfo>;
  /**
   * Cancels every query whose result is still streaming and resolves once Trino has been told (graceful
   * shutdown: no query of the gateway is left running). Queries started later are not affected.
   */
  close(): Promise<void>;
}

/** Drains a result into memory: the body of every port's `all`. */
export async function collectRows(result: ResultStream): Promise<TrinoRows> {
  const rows: unknown[][] = [];
  for await (const batch of result.batches) for (const row of rowValues(batch)) rows.push(row as unknown[]);
  return { columns: result.columns, rows };
}
