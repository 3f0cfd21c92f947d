/**
 * A TrinoPort that counts the queries Trino itself would list as running (system.runtime.queries, the count the
 * load test samples): a query is listed from its POST until it is read to its end, or until its cancellation has
 * reached Trino, `cancelMs` after it was sent (the DELETE's round trip). Each query yields `pages` one-row pages,
 * a page per pull; stopping early or aborting cancels it, as the real port does (the iteration ends only once the
 * DELETE has been answered).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCancelledError } from '../../src/trino/trino-errors.js';
import {
  collectRows,
  type QueryOptions,
  type TrinoInfo,
  type TrinoPort,
  type TrinoResult,
  type TrinoRows,
} from '../../src/trino/trino-port.js';

const COLUMNS = [{ name: 'n', type: 'integer' }] as const;

export class ListedQueriesTrino implements TrinoPort {
  /** Queries Trino lists as running now. */
  listed = 0;
  /** The most listed at once. */
  peak = 0;
  /** Queries started in all. */
  started = 0;

  constructor(
    private readonly pages = 1_000,
    private readonly cancelMs = 20,
  ) {}

  async query(_sql: string, opts: QueryOptions = {}): Promise<TrinoResult> {
    await Promise.resolve();
    const { signal } = opts;
    if (signal?.aborted) throw new QueryCancelledError('aborted', undefined);
    const queryId = `20261101_000000_${String(this.started++).padStart(5, '0')}_listd`;
    this.listed++;
    this.peak = Math.max(this.peak, this.listed);
    let over = false;
    const leave = () => {
      if (over) return;
      over = true;
      this.listed--;
    };
    let cancelling: Promise<void> | undefined;
    const cancel = () => (cancelling ??= over ? Promise.resolve() : sleep(this.cancelMs).then(leave));
    signal?.addEventListener('abort', () => void cancel(), { once: true });
    const pages = this.pages;
    async function* batches(): AsyncGenerator<unknown[][]> {
      let done = false;
      try {
        for (let i = 0; i < pages; i++) {
          await sleep(1);
          if (signal?.aborted) throw new QueryCancelledError('aborted', queryId);
          yield [[i]];
        }
        done = true;
        leave();
      } finally {
        if (!done) await cancel();
      }
    }
    return { queryId, columns: COLUMNS, batches: batches(), cancel };
  }

  all(sql: string, opts: QueryOptions = {}): Promise<TrinoRows> {
    return this.query(sql, opts).then(collectRows);
  }

  async cancel(): Promise<void> {}

  async info(): Promise<TrinoInfo> {
    return { starting: false };
  }

  async close(): Promise<void> {}
}
