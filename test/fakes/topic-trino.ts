/**
 * A FakeTrinoPort over one in-memory topic table (key, timestamp_broker), for unit tests of follows: each query is
 * answered with the table's rows that its broker-time bounds, OFFSET and LIMIT select, in broker-time then key
 * order, as the SQL a follow's poll compiles to asks (every `>=` and `<` bound on timestamp_broker applies).
 * Rows appended later are seen by later queries, as a topic's events are.
 */
import type { QueryOptions, TrinoResult } from '../../src/trino/trino-port.js';
import { FakeTrinoPort } from './fake-trino-port.js';

export const TOPIC_COLUMNS = [
  { name: 'key', type: 'varbinary' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
];

const LOWER = /"timestamp_broker" >= TIMESTAMP '([^']+)'/g;
const UPPER = /"timestamp_broker" < TIMESTAMP '([^']+)'/g;

export class TopicTrino extends FakeTrinoPort {
  /** The table: [key as base64 (Trino's varbinary), broker time as Trino text]. */
  readonly rows: [string, string][] = [];
  /** Each query's upper bound on broker time (Trino text), in order. */
  readonly uppers: string[] = [];
  /** Something each query waits for before its first page (a slow Trino): the query is running meanwhile. */
  gate: Promise<void> | undefined;

  constructor(private readonly pageRows = 2) {
    super();
  }

  /** Appends an event of key `key` at `ts` (Trino text). */
  append(key: string, ts: string): void {
    this.rows.push([Buffer.from(key).toString('base64'), ts]);
  }

  override async query(sql: string, opts: QueryOptions = {}): Promise<TrinoResult> {
    const rows = this.select(sql);
    const batches: unknown[][][] = [];
    for (let i = 0; i < rows.length; i += this.pageRows) batches.push(rows.slice(i, i + this.pageRows));
    this.answer(sql, { columns: TOPIC_COLUMNS, batches });
    const result = await super.query(sql, opts);
    const gate = this.gate;
    if (gate === undefined) return result;
    const pages = result.batches;
    return {
      ...result,
      batches: (async function* () {
        await gate;
        yield* pages;
      })(),
    };
  }

  private select(sql: string): [string, string][] {
    const lower =
      [...sql.matchAll(LOWER)]
        .map((m) => m[1]!)
        .sort()
        .at(-1) ?? '';
    const uppers = [...sql.matchAll(UPPER)].map((m) => m[1]!).sort();
    const upper = uppers[0] ?? '9999';
    this.uppers.push(upper);
    const offset = Number(/OFFSET (\d+)/.exec(sql)?.[1] ?? 0);
    const limit = Number(/LIMIT (\d+)/.exec(sql)?.[1] ?? Infinity);
    const order = (a: [string, string], b: [string, string]) =>
      a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
    const inWindow = this.rows.filter(([, ts]) => ts >= lower && ts < upper).sort(order);
    return inWindow.slice(offset, offset + limit);
  }
}
