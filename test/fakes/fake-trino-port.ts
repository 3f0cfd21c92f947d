/**
 * An in-memory TrinoPort for unit tests of code that runs queries (routes, planner, cursors) without a Trino.
 * Answers are scripted by SQL; every query is recorded with its options, how many batches were pulled and whether
 * it was cancelled. It behaves like the real port where callers can tell (test/unit/trino-port-contract.test.ts):
 * batches are handed out one pull at a time, an in-band error surfaces as TrinoQueryError (from query() when no
 * rows came before it), stopping early or aborting cancels, an aborted signal gives QueryCancelledError.
 */
import type { ResultColumn } from '../../src/core/result-stream.js';
import { QueryCancelledError, TrinoQueryError, type TrinoErrorInfo } from '../../src/trino/trino-errors.js';
import {
  collectRows,
  type QueryOptions,
  type TrinoInfo,
  type TrinoPort,
  type TrinoResult,
  type TrinoRows,
} from '../../src/trino/trino-port.js';

export interface FakeAnswer {
  columns: readonly ResultColumn[];
  /** The result's pages, in order. */
  batches?: readonly (readonly unknown[])[][];
  /** Trino's in-band error after the batches. */
  error?: TrinoErrorInfo;
  /** Any other failure after the batches (e.g. TrinoUnavailableError: Trino gone mid-stream). */
  failWith?: unknown;
}

export interface FakeQuery {
  sql: string;
  opts: QueryOptions;
  queryId: string;
  /** Batches handed out so far. */
  pulled: number;
  /** Every batch was handed out (or the result ended in its scripted failure). */
  finished: boolean;
  /** Cancelled: by cancel(), by stopping early, or by an abort before it finished. */
  cancelled: boolean;
}

type Matcher = string | RegExp | ((sql: string) => boolean);

export class FakeTrinoPort implements TrinoPort {
  readonly queries: FakeQuery[] = [];
  /** Ids passed to cancel(queryId). */
  readonly cancelledIds: string[] = [];
  /** What info() answers, or the error it rejects with. */
  infoAnswer: TrinoInfo | Error = { starting: false, nodeVersion: { version: '476' } };
  private readonly answers: { match: Matcher; answer: FakeAnswer | Error }[] = [];

  /** Scripts the answer to queries whose SQL matches (the latest matching script wins); an Error rejects query(). */
  answer(match: Matcher, answer: FakeAnswer | Error): this {
    this.answers.unshift({ match, answer });
    return this;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<TrinoResult> {
    await Promise.resolve(); // a query is always asynchronous
    if (opts.signal?.aborted) throw new QueryCancelledError('aborted', undefined);
    const answer = this.answers.find((a) => matches(a.match, sql))?.answer;
    if (answer === undefined) throw new Error(`FakeTrinoPort: no answer scripted for ${JSON.stringify(sql)}`);
    if (answer instanceof Error) throw answer;
    const queryId = `20261101_000000_${pad(this.queries.length)}_fake0`;
    const q: FakeQuery = { sql, opts, queryId, pulled: 0, finished: false, cancelled: false };
    this.queries.push(q);
    if (answer.error && !answer.batches?.length) throw new TrinoQueryError(answer.error, q.queryId);
    const cancel = async () => {
      if (!q.finished) q.cancelled = true;
    };
    opts.signal?.addEventListener('abort', () => void cancel(), { once: true });
    return { queryId: q.queryId, columns: answer.columns, batches: pages(q, answer, opts.signal), cancel };
  }

  all(sql: string, opts: QueryOptions = {}): Promise<TrinoRows> {
    return this.query(sql, opts).then(collectRows);
  }

  async cancel(queryId: string): Promise<void> {
    this.cancelledIds.push(queryId);
  }

  async info(): Promise<TrinoInfo> {
    if (this.infoAnswer instanceof Error) throw this.infoAnswer;
    return this.infoAnswer;
  }

  async close(): Promise<void> {
    for (const q of this.queries) if (!q.finished) q.cancelled = true;
  }
}

async function* pages(q: FakeQuery, answer: FakeAnswer, signal?: AbortSignal): AsyncGenerator<unknown[][]> {
  try {
    for (const batch of answer.batches ?? []) {
      await Promise.resolve(); // a page fetch is always asynchronous
      if (signal?.aborted) throw new QueryCancelledError('aborted', q.queryId);
      q.pulled++;
      yield batch as unknown[][];
    }
    q.finished = true;
    if (answer.error) throw new TrinoQueryError(answer.error, q.queryId);
    if (answer.failWith !== undefined) throw answer.failWith;
  } finally {
    if (!q.finished) q.cancelled = true;
  }
}

function matches(m: Matcher, sql: string): boolean {
  if (typeof m === 'string') return sql === m;
  if (m instanceof RegExp) return m.test(sql);
  return m(sql);
}

function pad(n: number): string {
  return String(n).padStart(5, '0');
}
