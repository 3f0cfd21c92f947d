/**
 * Cuts a Trino result (which asks for limit + 1 rows) to one page: passes at most `limit` rows on, learns
 * from the extra row whether a next page exists, and records the broker times of the page's rows so the next
 * position can be anchored (paging.ts). It can read ahead a bounded number of rows before the response
 * starts, so headers (Link: next) can be exact for pages that fit the budget. When the result is held
 * (held-results.ts), it is not ended with the page but handed over, for the next page to continue.
 */
import type { ResultStream } from '../core/result-stream.js';
import { retainedBytes } from './retained-bytes.js';
import { rowValues, TextRows, type Row, type RowBatch } from '../core/text-rows.js';
import { nextPosition, type PagePosition, type PageTimes } from '../query/tree/page-position.js';
import type { MemoryAccount } from './gateway-memory.js';

/** What a look-ahead may hold: the rows it buffers are held through the response's account (gateway-memory.ts). */
export interface LookAheadBudget {
  memory: MemoryAccount;
  /** Bytes it may hold; past them (or when the gateway's limit has no room) it stops with what it has. */
  maxBytes: number;
  /**
   * The page's headers need it settled (its next position is unknown until its end): past the gateway's limit it
   * is refused (a 422 or 429 naming it) instead of stopping early.
   */
  mustSettle: boolean;
}

export class PageCutter {
  /** Batches read ahead, each with the bytes held for it until it is handed on. */
  private readonly queue: { batch: RowBatch; bytes: number }[] = [];
  private readonly source: AsyncIterator<RowBatch>;
  private seen = 0;
  private ended = false;
  private readonly times: PageTimes | null;
  /** True once the extra row was seen: a next page exists. */
  more = false;
  /** The account the look-ahead held its batches through. */
  private memory: MemoryAccount | undefined;

  /** Rows taken from the result so far, kept or not (the next position counts them). */
  private consumed = 0;

  /** Holding: the rows after the page in the batch that ended it; whether the page was read to its end. */
  private after: Row[] = [];
  private completed = false;
  /** Rows to pass through the cut before the source's (a held result's rows after the previous page). */
  private readonly first: Row[][];

  /**
   * `keep`: a filter the post-decode stage evaluates (decoded Avro fields, query/passes/post-decode-split.ts): only kept rows count
   * towards the limit, and the position after the page counts every row read up to its last kept one.
   */
  constructor(
    private readonly result: ResultStream,
    private readonly limit: number,
    private readonly timeIndex: number | null,
    private readonly keep?: (row: Row) => boolean | null,
    /** The result is held past the page (held-results.ts): `rest()` hands it over; else it ends with the page. */
    private readonly holding = false,
    /** Rows that come before the result's own (a held result's, read after the previous page). */
    first: Row[] = [],
  ) {
    this.source = result.batches[Symbol.asyncIterator]();
    this.first = first.length ? [first] : [];
    // An unlimited page has no next one to anchor: its times are not needed.
    this.times = timeIndex === null || limit === Infinity ? null : { last: '', trailing: 0, total: 0 };
  }

  /** Rows passed on so far. */
  get rows(): number {
    return this.seen;
  }

  /** True when the page's end is known (all its rows and whether more exist). */
  get settled(): boolean {
    return this.ended || this.more;
  }

  /**
   * Reads ahead until the page is settled, or `maxRows` rows or the budget's bytes are buffered (at least one
   * batch, whatever its size: it is what a response holds while it writes a batch anyway).
   */
  async lookAhead(maxRows: number, budget: LookAheadBudget): Promise<void> {
    this.memory = budget.memory;
    let buffered = 0;
    let bytes = 0;
    for (;;) {
      const batch = await this.pull();
      if (!batch) break;
      const size = retainedBytes(batch);
      let held = 0;
      if (budget.mustSettle) {
        budget.memory.hold(size, 'reading ahead a page filtered on decoded fields');
        held = size;
      } else if (bytes + size <= budget.maxBytes && budget.memory.tryHold(size)) held = size;
      this.queue.push({ batch, bytes: held });
      bytes += size;
      buffered += batch instanceof TextRows ? batch.count : batch.length;
      if (this.settled || buffered >= maxRows || held < size) break;
    }
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

  async *batches(): AsyncGenerator<RowBatch> {
    try {
      for (;;) {
        const ahead = this.queue.shift();
        if (ahead) this.memory?.release(ahead.bytes);
        const batch = ahead?.batch ?? (await this.pull());
        if (!batch) {
          this.completed = true;
          return;
        }
        yield batch;
      }
    } finally {
      // Handed over by rest() when held, read to the page's end with a next page to come; ended otherwise.
      if (!this.handsOver()) await this.source.return?.();
    }
  }

  /**
   * Holding, once the page was read to its end and a next page exists: the rows after the page (from the batch
   * that ended it), the result to continue, and the rows the page took from it (its own and those before it).
   * The caller then owns the result: it holds it or ends it.
   */
  rest(): { rows: Row[]; source: AsyncIterator<RowBatch>; consumed: number } | null {
    return this.handsOver() ? { rows: this.after, source: this.source, consumed: this.consumed } : null;
  }

  private handsOver(): boolean {
    return this.holding && this.completed && this.more;
  }

  view(onDone?: () => void): ResultStream {
    const self = this;
    async function* gen() {
      yield* self.batches();
      onDone?.();
    }
    return { queryId: this.result.queryId, columns: this.result.columns, batches: gen() };
  }

  /** A batch of text rows, cut to the `room` left on the page (the rest kept for a held result). */
  private async passText(batch: TextRows, room: number): Promise<RowBatch | undefined> {
    let page = batch;
    if (batch.count > room) {
      this.more = true;
      const [head, tail] = room > 0 ? batch.split(room) : [null, batch];
      if (this.holding) this.after = tail.values();
      if (!this.holding) await this.source.return?.();
      if (!head) return undefined;
      page = head;
    }
    this.seen += page.count;
    this.consumed += page.count;
    return page;
  }

  private async pull(): Promise<RowBatch | undefined> {
    if (this.settled) return undefined;
    const held = this.first.shift();
    const r = held ? { done: false as const, value: held } : await this.source.next();
    if (r.done) {
      this.ended = true;
      return undefined;
    }
    const room = this.limit - this.seen;
    const batch = r.value;
    // Rows as text pass through as they are (cut at the page's end) when nothing here needs their values: no
    // filter, and no broker times to anchor the next page on.
    if (batch instanceof TextRows && !this.keep && !this.times) return this.passText(batch, room);
    let rows = rowValues(batch) as Row[];
    let read = rows;
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
      if (this.holding) this.after = rows.slice(room);
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
    // The query ends with the page, unless it is held (then batches() hands it over).
    if (this.more && !this.holding) await this.source.return?.();
    return rows.length ? rows : this.settled ? undefined : [];
  }
}
