/**
 * Decoded Avro fields as columns, without services: names resolved through a reader type, the plan split
 * into Trino's tree (which compiles: no decoded field reaches SQL) and the gateway stage, and the stage run over
 * decoded rows held in memory. Expected results are computed here by plain filtering and sorting of the same rows.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { plan } from '../../src/query/planner.js';
import type { ReadPolicy } from '../../src/query/tree/read-policy.js';
import { readRequestFromBody, readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import { compareKeys, keyOf } from '../../src/read/post-decode/evaluate.js';
import { postDecodeRun } from '../../src/read/post-decode/post-decode-stage.js';
import { PageCutter } from '../../src/read/page-cutter.js';
import { GatewayMemory } from '../../src/read/gateway-memory.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { apiError } from '../cases/api-error.js';
import { rowValues, type RowBatch } from '../../src/core/text-rows.js';

const VALUE_TYPE =
  'row(id bigint, amount decimal(12,2), currency varchar, at timestamp(3), customer row(id varchar, country varchar), tags array(varchar), sig varbinary)';
const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
];
const topic: TopicModel = {
  ...topicOf(COLUMNS, 'pay'),
  // The value is Avro-framed: the stage reads it decoded, by the reader type below.
  columns: new Map(
    COLUMNS.map((c) => [c.name, { ...c, source: c.name === 'value' ? { kind: 'table', framed: 'avro' } : c.source }]),
  ),
  decoded: new Map([['value', VALUE_TYPE]]),
};
const DAY = 86_400_000;
const POLICY: ReadPolicy = testPolicy({
  postDecodeMaxRows: 50,
  infer: { defaultSample: 10, maxSample: 10, defaultWindowMs: DAY, maxWindowMs: DAY },
});
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };

/** Decoded rows as the payload decoder hands them on: value decoded, then its three companion columns. */
const DECODED_COLUMNS = [
  { name: 'key', type: 'varbinary' },
  { name: 'value', type: VALUE_TYPE },
  { name: 'value_schema_id', type: 'integer' },
  { name: 'value_raw', type: 'varbinary' },
  { name: 'value_error', type: 'varchar' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
  { name: 'timestamp_producer', type: 'timestamp(3)' },
];
const CURRENCIES = ['EUR', 'USD', 'JPY'];
function event(i: number): unknown[] {
  const ts = `2026-11-01 00:00:${String(Math.floor(i / 3)).padStart(2, '0')}.000`; // three events per second: ties
  if (i % 11 === 4) return [null, null, null, Buffer.from('plain').toString('base64'), 'unframed', ts, ts];
  const cents = ((i * 37) % 500) - 100;
  const amount = `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
  const id = i % 5 === 0 ? String(9007199254740993n + BigInt(i)) : i;
  const value = [id, amount, CURRENCIES[i % 3], ts, [`c${i % 4}`, i % 2 ? 'DE' : 'FR'], ['a', `t${i}`], 'AAE='];
  return [null, value, 1, null, null, ts, ts];
}
const EVENTS = Array.from({ length: 60 }, (_, i) => event(i));
/** An account in a gateway whose limit nothing here reaches. */
const unbounded = () => new GatewayMemory(2 ** 40).account();
const amountOf = (row: unknown[]) => (row[1] ? ((row[1] as unknown[])[1] as string) : null);

function planned(query: Record<string, unknown>, token: PagePositionArg = null) {
  return plan(
    { kind: 'read', topic, read: { ...readRequestFromQuery(query, resolver(topic)), ...WINDOW }, token },
    POLICY,
    NOW,
  );
}
type PagePositionArg = Parameters<typeof plan>[0] extends infer R ? (R extends { token: infer T } ? T : never) : never;

async function rowsOf(stream: { batches: AsyncIterable<RowBatch> }) {
  const out: unknown[][] = [];
  for await (const b of stream.batches) for (const r of rowValues(b)) out.push([...r]);
  return out;
}

describe('decoded fields resolve through the reader type', () => {
  const resolve = resolver(topic);
  it('dotted and arrow paths, typed by the schema', () => {
    expect(resolve('value.amount')).toMatchObject({ name: 'value.amount', type: 'decimal(12,2)' });
    expect(resolve('value.customer.country')).toMatchObject({ type: 'varchar' });
    expect(resolve('value->customer->country')).toMatchObject({ name: 'value->customer->country', type: 'varchar' });
    expect(resolve('value.tags.1')).toMatchObject({ type: 'varchar', source: { path: ['tags', 1] } });
  });
  it('a field the schema does not have is a 400 naming it', () => {
    const e = apiError(() => resolve('value.customer.zip'));
    expect(e.code).toBe('TG_UNKNOWN_COLUMN');
    expect(e.message).toContain('has no field "zip" (fields: id, country)');
    expect(apiError(() => resolve('value.amount.x')).message).toContain('(decimal(12,2)) has no fields');
  });
});

describe('the plan: Trino reads events, the gateway does the rest', () => {
  it('filters on decoded fields leave the SQL; the others stay in it, pushed', () => {
    const p = planned({ 'value.amount': 'gt.1.00', timestamp_producer: 'gte.2026-11-01T00:00:00Z' });
    const sql = compileQuery(p.tree);
    expect(sql).not.toContain('amount');
    expect(sql).toContain('"timestamp_producer" >= TIMESTAMP');
    expect(p.postDecode).toMatchObject({ mode: 'stream', limit: 100 });
    expect(p.tree.limit).toBe(Infinity);
  });
  it('an order or an aggregate on a decoded field gathers; an unbounded one is refused by the guardrail', () => {
    expect(planned({ order: 'value->amount.desc' }).postDecode?.mode).toBe('gather');
    const e = apiError(() =>
      plan(
        { kind: 'read', topic, read: readRequestFromQuery({ order: '"value.amount"' }, resolver(topic)), token: null },
        POLICY,
        NOW,
      ),
    );
    expect(e.code).toBe('TG_TIME_BOUND_REQUIRED');
    expect(e.message).toContain('sorts or aggregates decoded fields');
  });
  it('operators the gateway does not evaluate are refused while planning', () => {
    expect(apiError(() => planned({ 'value.amount': 'like.1*' })).code).toBe('TG_BAD_OPERATOR');
    expect(apiError(() => planned({ 'value.tags': 'cs.{a}' })).code).toBe('TG_BAD_OPERATOR');
  });
});

describe('the stage over decoded rows', () => {
  const batches = [EVENTS.slice(0, 25), EVENTS.slice(25, 40), EVENTS.slice(40)];

  it('a filtered page keeps only matching rows, and the next page starts right after the last one kept', async () => {
    const p = planned({
      'value.amount': 'gte.2.00',
      'value.currency': 'eq.EUR',
      limit: '4',
      select: 'value.id,value->amount',
    });
    const result = inMemoryResult(DECODED_COLUMNS, batches);
    const run = postDecodeRun(p.postDecode!, result, new Set(['value']), unbounded());
    const cutter = new PageCutter(run.source, 4, 5, run.keep);
    const page = await rowsOf(run.project(cutter.view()));
    const expected = EVENTS.filter((r) => r[1] && Number(amountOf(r)) >= 2 && (r[1] as unknown[])[2] === 'EUR');
    expect(page).toEqual(expected.slice(0, 4).map((r) => [(r[1] as unknown[])[0], amountOf(r)]));
    expect(run.project(cutter.view()).columns.map((c) => c.name)).toEqual(['value.id', 'amount']);
    // The position counts every row read before the 5th kept one (the rows between the 4th and it match nothing).
    const last = EVENTS.indexOf(expected[4]!) - 1;
    const next = cutter.next(p.position)!;
    expect(next.a).toBe(EVENTS[last]![5]);
    expect(next.s).toBe(EVENTS.slice(0, last + 1).filter((r) => r[5] === EVENTS[last]![5]).length);
    expect(last).toBeGreaterThan(EVENTS.indexOf(expected[3]!));
  });

  it('three-valued logic: NOT of a comparison with a missing field keeps nothing; OR with a true side keeps', async () => {
    const p = planned({ or: '(value->amount.not.gt.0,"value.currency".eq.USD)', limit: '1000' });
    const run = postDecodeRun(p.postDecode!, inMemoryResult(DECODED_COLUMNS, batches), new Set(['value']), unbounded());
    const kept = EVENTS.filter((r) => run.keep!(r) === true);
    const expected = EVENTS.filter((r) => r[1] && (Number(amountOf(r)) <= 0 || (r[1] as unknown[])[2] === 'USD'));
    expect(kept).toEqual(expected);
    expect(EVENTS.some((r) => r[1] === null)).toBe(true);
  });

  it('sorts by a decimal field exactly, ties in Trino order, nulls last, from the page offset', async () => {
    const p = planned({ order: 'value->amount.desc', select: 'value.id,value.amount', limit: '7' });
    const run = postDecodeRun(
      { ...p.postDecode!, offset: 3, maxRows: 1000 },
      inMemoryResult(DECODED_COLUMNS, batches),
      new Set(['value']),
      unbounded(),
    );
    const rows = await rowsOf(run.source);
    const byAmount = EVENTS.map((r, i) => ({ r, i }))
      .sort((a, b) => {
        const x = amountOf(a.r);
        const y = amountOf(b.r);
        if (x === null || y === null) return x === y ? a.i - b.i : x === null ? 1 : -1;
        return Number(y) - Number(x) || a.i - b.i;
      })
      .map(({ r }) => [r[1] ? (r[1] as unknown[])[0] : null, amountOf(r)]);
    expect(rows).toEqual(byAmount.slice(3));
  });

  it('aggregates with exact decimal and bigint arithmetic, grouped and ordered', async () => {
    const body = {
      select: [
        'value.currency',
        { fn: 'count', as: 'n' },
        { fn: 'sum', field: 'value.amount', as: 'total' },
        { fn: 'avg', field: 'value.amount', as: 'mean' },
        { fn: 'max', field: 'value.id', as: 'top' },
        { fn: 'count_distinct', field: 'value.customer.id', as: 'customers' },
      ],
      groupBy: ['value.currency'],
      order: [{ field: 'n', dir: 'desc' }],
      ...WINDOW,
    };
    const p = plan(
      { kind: 'read', topic, read: readRequestFromBody(body as never, resolver(topic)), token: null },
      POLICY,
      NOW,
    );
    const run = postDecodeRun(p.postDecode!, inMemoryResult(DECODED_COLUMNS, batches), new Set(['value']), unbounded());
    const rows = await rowsOf(run.source);
    const groups = new Map<string | null, unknown[][]>();
    for (const r of EVENTS) {
      const c = r[1] ? ((r[1] as unknown[])[2] as string) : null;
      groups.set(c, [...(groups.get(c) ?? []), r]);
    }
    const cents = (rs: unknown[][]) =>
      rs.filter((r) => r[1]).reduce((n, r) => n + Math.round(Number(amountOf(r)) * 100), 0);
    const text = (c: number) =>
      `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
    for (const row of rows) {
      const rs = groups.get(row[0] as string | null)!;
      const decoded = rs.filter((r) => r[1]);
      expect(row[1]).toBe(rs.length);
      expect(row[2]).toBe(decoded.length ? text(cents(rs)) : null);
      if (decoded.length) {
        const mean = cents(rs) / decoded.length;
        expect(row[3]).toBe(text(Math.sign(mean) * Math.round(Math.abs(mean))));
        const ids = decoded.map((r) => BigInt((r[1] as unknown[])[0] as string | number));
        // biome-ignore lint/complexity/useMathMinMax: BigInt values (Math.max takes numbers only)
        const top = ids.reduce((a, b) => (b > a ? b : a));
        expect(String(row[4])).toBe(String(top));
        expect(row[5]).toBe(new Set(decoded.map((r) => ((r[1] as unknown[])[4] as unknown[])[0])).size);
      }
    }
    expect(rows.map((r) => r[1])).toEqual([...rows.map((r) => r[1] as number)].sort((a, b) => b - a));
    expect(rows).toHaveLength(groups.size);
  });

  it('holding more bytes than the gateway allows is a 422 naming limits.maxGatewayBytes; all given back', async () => {
    const p = planned({ order: '"value.amount"' });
    const gateway = new GatewayMemory(4096);
    const memory = gateway.account();
    const run = postDecodeRun(p.postDecode!, inMemoryResult(DECODED_COLUMNS, batches), new Set(['value']), memory);
    const err = await rowsOf(run.source).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).code, (err as ApiError).details]).toEqual([
      'TG_TOO_EXPENSIVE',
      { limit: 'limits.maxGatewayBytes', max: 4096 },
    ]);
    expect((err as ApiError).message).toContain('limits.maxGatewayBytes');
    expect([memory.bytes, gateway.held]).toEqual([0, 0]);
  });

  it('an aggregation whose groups find the gateway full of other responses is a 429 naming the limit', async () => {
    const body = { select: ['value.customer.id', { fn: 'count', as: 'n' }], groupBy: ['value.customer.id'], ...WINDOW };
    const read = readRequestFromBody(body as never, resolver(topic));
    const p = plan({ kind: 'read', topic, read, token: null }, POLICY, NOW);
    const gateway = new GatewayMemory(64 * 1024);
    const other = gateway.account();
    expect(other.tryHold(64 * 1024 - 100)).toBe(true);
    const memory = gateway.account();
    const run = postDecodeRun(p.postDecode!, inMemoryResult(DECODED_COLUMNS, batches), new Set(['value']), memory);
    const err = (await rowsOf(run.source).catch((e: unknown) => e)) as ApiError;
    expect([err.code, err.status, err.retryAfterS, err.details]).toEqual([
      'TG_TOO_MANY_REQUESTS',
      429,
      2,
      { limit: 'limits.maxGatewayBytes', max: 64 * 1024 },
    ]);
    other.close();
    // With the room back, the same aggregation holds its groups and gives them back once handed on.
    const again = postDecodeRun(p.postDecode!, inMemoryResult(DECODED_COLUMNS, batches), new Set(['value']), memory);
    const counts = (await rowsOf(again.source)).map((r) => Number(r[1]));
    expect([counts.length, counts.reduce((a, b) => a + b)]).toEqual([5, EVENTS.length]);
    expect(gateway.held).toBe(0);
  });

  it('holding more rows than the cap is a 422 naming it', async () => {
    const p = planned({ order: '"value.amount"' });
    const run = postDecodeRun(p.postDecode!, inMemoryResult(DECODED_COLUMNS, batches), new Set(['value']), unbounded());
    const err = await rowsOf(run.source).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('TG_TOO_EXPENSIVE');
    expect((err as ApiError).message).toContain('TOPICGATE_GATEWAY_MAX_ROWS');
  });
});

describe('comparison keys order as Trino does', () => {
  it('decimals of any scale, bigints past 2^53, timestamps of any precision, text by code point', () => {
    expect(compareKeys(keyOf('decimal', '-0.10'), keyOf('decimal', '-0.1'))).toBe(0);
    expect(compareKeys(keyOf('decimal', '10.5'), keyOf('decimal', '9.99'))).toBe(1);
    expect(compareKeys(keyOf('integer', '9007199254740993'), keyOf('integer', 9007199254740992))).toBe(1);
    expect(
      compareKeys(keyOf('timestamp', '2026-11-01 00:00:00.1'), keyOf('timestamp', '2026-11-01 00:00:00.099999')),
    ).toBe(1);
    expect(compareKeys(keyOf('varchar', '\u{1F600}'), keyOf('varchar', '\uFFFD'))).toBe(1);
    expect(compareKeys(keyOf('varbinary', '\\xff00'), keyOf('varbinary', Buffer.from([0xff]).toString('base64')))).toBe(
      1,
    );
  });
});
