/**
 * A TrinoPort that counts the queries Trino itself would list as running (system.runtime.queries, the count the
 * load test samples): a query is listed from its POST until it is read to its end, or until its cancellation has
 * reached Trino, `cancelMs` after it was sent (the DELETE's round trip). Each query yields `pages` one-row pages,
 * a page per pull; stopping early or aborting cancels it, as the real port does (the iteration ends only once the
 * DELETE has been answered). With `postMs`, Trino answers a query's POST that much later: an abort meanwhile rejects
 * at once and tells `cancelling` of the cancellation sent once the POST is answered, as the real port does.
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
    private readonly postMs = 0,
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
    if (this.postMs > 0) await this.answered(opts, leave);
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

  /** Waits for the POST's answer; an abort meanwhile rejects at once, the query cancelled once it is answered. */
  private async answered(opts: QueryOptions, leave: () => void): Promise<void> {
    const answer = sleep(this.postMs);
    const aborted = new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve()));
    if ((await Promise.race([answer.then(() => 'answered'), aborted])) === 'answered') return;
    opts.cancelling?.(answer.then(() => sleep(this.cancelMs)).then(leave));
    throw new QueryCancelledError('aborted', undefined);
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
