/**
 * Cuts a Trino result (which asks for limit + 1 rows) to one page: passes at most `limit` rows on, learns
 * from the extra row whether a next page exists, and records the broker times of the page's rows so the next
 * position can be anchored (paging.ts). It can read ahead a bounded number of rows before the response
 * starts, so headers (Link: next) can be exact for pages that fit the budget.
 */
import type { ResultStream } from '../trino/result-stream.js';
import { nextPosition, type PagePosition, type PageTimes } from '../query/paging.js';

type Row = readonly unknown[];

export class PageCutter {
  private readonly queue: Row[][] = [];
  private readonly source: AsyncIterator<readonly Row[]>;
  private seen = 0;
  private ended = false;
  private readonly times: PageTimes | null;
  /** True once the extra row was seen: a next page exists. */
  more = false;

  /** Rows taken from the result so far, kept or not (the next position counts them). */
  private consumed = 0;

  /** Rows after the page, read on for the pages after it (read-ahead.ts), and whether the result ended there. */
  private spill: Row[] = [];
  private spillEnded = false;

  /**
   * `keep`: a filter the gateway evaluates (decoded Avro fields, query/gateway-plan.ts): only kept rows count
   * towards the limit, and the position after the page counts every row read up to its last kept one.
   */
  constructor(
    private readonly result: ResultStream,
    private readonly limit: number,
    private readonly timeIndex: number | null,
    private readonly keep?: (row: Row) => boolean | null,
    /** Rows past the page to read on for the next pages (read-ahead.ts); 0: the query ends with the page. */
    private readonly spillCapacity = 0,
  ) {
    this.source = result.batches[Symbol.asyncIterator]();
    this.times = timeIndex === null ? null : { last: '', trailing: 0, total: 0 };
  }

  /** Rows passed on so far. */
  get rows(): number {
    return this.seen;
  }

  /** True when the page's end is known (all its rows and whether more exist). */
  get settled(): boolean {
    return this.ended || this.more;
  }

  /** Reads ahead until the page is settled or `maxRows` rows are buffered (at least one batch). */
  async prefetch(maxRows: number): Promise<void> {
    let buffered = 0;
    do {
      const batch = await this.pull();
      if (!batch) break;
      this.queue.push(batch);
      buffered += batch.length;
    } while (!this.settled && buffered < maxRows);
  }

  /** The position after this page, or null when this is the last page. Exact only once the page has ended. */
  next(cur: PagePosition): PagePosition | null {
    if (!this.settled) return nextPosition(cur, null, this.limit);
    if (!this.more) return null;
    return nextPosition(cur, this.times, this.consumed);
  }

  /**
   * Where the next page would start if one exists, before the page's rows are known (offset by the limit); null
   * when rows are filtered here, as the rows read for a page are then unknown until it ends.
   */
  presumedNext(cur: PagePosition): PagePosition | null {
    return this.keep ? null : nextPosition(cur, null, this.limit);
  }

  async *batches(): AsyncGenerator<readonly Row[]> {
    try {
      for (;;) {
        const batch = this.queue.shift() ?? (await this.pull());
        if (!batch) {
          await this.readSpill();
          return;
        }
        yield batch;
      }
    } finally {
      await this.source.return?.();
    }
  }

  /**
   * The rows after the page, once the page has been read to its end with a next page to come (and a spill
   * capacity): at most that many, and whether the result ended within them. Null otherwise.
   */
  spilled(): { rows: Row[]; ended: boolean } | null {
    return this.spillCapacity > 0 && this.more ? { rows: this.spill, ended: this.spillEnded } : null;
  }

  /** After the page: reads on up to the spill capacity (the query asked for that many rows more). */
  private async readSpill(): Promise<void> {
    if (!this.more || this.spillCapacity === 0) return;
    while (this.spill.length < this.spillCapacity) {
      const r = await this.source.next();
      if (r.done) {
        this.spillEnded = true;
        return;
      }
      const room = this.spillCapacity - this.spill.length;
      const rows = r.value as Row[];
      for (let i = 0; i < rows.length && i < room; i++) this.spill.push(rows[i]!);
    }
  }

  view(onDone?: () => void): ResultStream {
    const self = this;
    async function* gen() {
      yield* self.batches();
      onDone?.();
    }
    return { queryId: this.result.queryId, columns: this.result.columns, batches: gen() };
  }

  private async pull(): Promise<Row[] | undefined> {
    if (this.settled) return undefined;
    const r = await this.source.next();
    if (r.done) {
      this.ended = true;
      return undefined;
    }
    let rows = r.value as Row[];
    let read = rows;
    const room = this.limit - this.seen;
    if (this.keep) {
      const kept: Row[] = [];
      let i = 0;
      for (; i < rows.length; i++) {
        if (this.keep(rows[i]!) !== true) continue;
        if (kept.length === room) {
          this.more = true;
          break;
        }
        kept.push(rows[i]!);
      }
      read = rows.slice(0, i);
      rows = kept;
    } else if (rows.length > room) {
      this.more = true;
      if (this.spillCapacity > 0) this.spill = rows.slice(room, room + this.spillCapacity);
      rows = rows.slice(0, room);
      read = rows;
    }
    this.seen += rows.length;
    this.consumed += read.length;
    const t = this.times;
    if (t) {
      for (const row of read) {
        const v = row[this.timeIndex!] as string;
        t.trailing = v === t.last ? t.trailing + 1 : 1;
        t.last = v;
        t.total++;
      }
    }
    // The query ends with the page, unless rows after it are read on (then once they are, in batches()).
    if (this.more && this.spillCapacity === 0) await this.source.return?.();
    return rows.length ? rows : this.settled ? undefined : [];
  }
}
