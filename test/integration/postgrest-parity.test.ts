/**
 * PostgREST parity against the real Trino: every supported form of the grammar
 * returns the rows that hand-written SQL following PostgREST's (PostgreSQL's) semantics returns, and every refused
 * form is a 400 naming the operator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql, testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.close());

/** Every case reads the first day of orders, so every expected answer fits one page. */
const DAY = 'since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z';
const DAY_SQL = `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-02 00:00:00'`;
const KEY = `from_utf8(key)`;
/** A JSON field of the payload by hand (the demo's non-UTF-8 values are not JSON either). */
const S = (path: string) => `json_extract_scalar(from_utf8(value), '${path}')`;

/**
 * The rows (key as base64, broker time, producer time) the gateway returns, sorted. Read in descending broker time:
 * one Trino query per case, where an ascending page runs as time slices (read/sliced-result.ts) that cost a query
 * each. The filter compiles to the same WHERE either way, and the rows are compared as a sorted multiset; slicing has
 * its own tests (slices.test.ts, paging.test.ts).
 */
async function gatewayRows(params: string): Promise<string[]> {
  const res = await app.inject(
    `/v1/topics/orders/events?${params}&${DAY}&select=key,timestamp_broker,timestamp_producer&order=timestamp_broker.desc&limit=10000&format=ndjson`,
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { key: string | null; timestamp_broker: string; timestamp_producer: string })
    .map((r) => `${r.key}|${r.timestamp_broker}|${r.timestamp_producer}`)
    .sort();
}

// [GET filter parameters, PostgREST's meaning as SQL, expected rows: 'some' (at least one, not all), 'none', 'all']
const SUPPORTED: [string, string, 'some' | 'none' | 'all'][] = [
  // like / ilike: %, _ and * are wildcards; a backslash escapes.
  ['key=like.order-100000_', `${KEY} LIKE 'order-100000_'`, 'some'],
  ['key=like.%25-100001%25', `${KEY} LIKE '%-100001%'`, 'some'],
  ['key=like.*-100001*', `${KEY} LIKE '%-100001%'`, 'some'],
  ['key=like.order\\-10000_*', `${KEY} LIKE 'order-10000_%'`, 'some'],
  ['key=like.order\\_*', `${KEY} LIKE 'order\\_%' ESCAPE '\\'`, 'none'],
  ['key=ilike.ORDER-10000%25', `lower(${KEY}) LIKE 'order-10000%'`, 'some'],
  ['value=like.*"status":"p_id"*', `from_utf8(value) LIKE '%"status":"p_id"%'`, 'some'],
  ['key=not.like.order*', `NOT (${KEY} LIKE 'order%')`, 'some'],
  // in: an empty list matches nothing, its negation everything.
  ['key=in.()', 'FALSE', 'none'],
  ['key=not.in.()', 'TRUE', 'all'],
  ['key=in.(order-1000001,order-1000002)', `${KEY} IN ('order-1000001', 'order-1000002')`, 'some'],
  // is: any letter case, not_null, and distinctness.
  ['key=is.NULL', 'key IS NULL', 'some'],
  ['key=is.Not_Null', 'key IS NOT NULL', 'some'],
  ['key=not.is.not_null', 'key IS NULL', 'some'],
  ['key=isdistinct.order-1000002', `key IS DISTINCT FROM to_utf8('order-1000002')`, 'some'],
  ['key=not.isdistinct.order-1000002', `key = to_utf8('order-1000002')`, 'some'],
  // match / imatch: regular expressions (PostgreSQL's ~ and ~*).
  ['key=match.^order-100000[12]$', `regexp_like(${KEY}, '^order-100000[12]$')`, 'some'],
  ['key=imatch.^ORDER-10000.1$', `regexp_like(lower(${KEY}), '^order-10000.1$')`, 'some'],
  ['key=not.match.^order', `NOT regexp_like(${KEY}, '^order')`, 'some'],
  // any / all modifiers.
  ['key=eq(any).{order-1000001,order-1000002}', `${KEY} IN ('order-1000001', 'order-1000002')`, 'some'],
  ['key=eq(any).{}', 'FALSE', 'none'],
  ['key=like(any).{order-100000*,order-100001*}', `${KEY} LIKE 'order-100000%' OR ${KEY} LIKE 'order-100001%'`, 'some'],
  ['key=like(all).{order-1*,*5}', `${KEY} LIKE 'order-1%' AND ${KEY} LIKE '%5'`, 'some'],
  ['key=ilike(any).{ORDER-1000001,*-1000002}', `lower(${KEY}) IN ('order-1000001') OR ${KEY} LIKE '%-1000002'`, 'some'],
  ['key=match(any).{^order-1000001$,^order-1000002$}', `${KEY} IN ('order-1000001', 'order-1000002')`, 'some'],
  ['key=imatch(all).{^ORDER,1$}', `regexp_like(${KEY}, '^order') AND regexp_like(${KEY}, '1$')`, 'some'],
  [
    'timestamp_broker=gte(all).{2026-11-01T01:00:00Z,2026-11-01T02:00:00Z}',
    `timestamp_broker >= TIMESTAMP '2026-11-01 02:00:00'`,
    'some',
  ],
  [
    'timestamp_broker=lt(any).{2026-11-01T01:00:00Z,2026-11-01T02:00:00Z}',
    `timestamp_broker < TIMESTAMP '2026-11-01 02:00:00'`,
    'some',
  ],
  ['timestamp_producer=gt(any).{2026-11-01T23:00:00Z}', `timestamp_producer > TIMESTAMP '2026-11-01 23:00:00'`, 'some'],
  ['timestamp_producer=lte(all).{}', 'TRUE', 'all'],
  // Arrays: headers compared by their keys.
  [
    'headers=cs.{source,trace}',
    `contains(transform(headers, h -> h.key), 'source') AND contains(transform(headers, h -> h.key), 'trace')`,
    'some',
  ],
  ['headers=cs.{}', 'headers IS NOT NULL', 'all'],
  ['headers=cd.{source,trace}', `all_match(headers, h -> h.key IN ('source', 'trace'))`, 'all'],
  ['headers=cd.{source}', `all_match(headers, h -> h.key = 'source')`, 'some'],
  ['headers=cd.{}', 'cardinality(headers) = 0', 'some'],
  ['headers=ov.{trace,nope}', `any_match(headers, h -> h.key IN ('trace', 'nope'))`, 'some'],
  ['headers=not.ov.{trace}', `NOT any_match(headers, h -> h.key = 'trace')`, 'some'],
  // Times without a zone are UTC, like broker and producer timestamps.
  ['timestamp_broker=lt.2026-11-01T01:00:00', `timestamp_broker < TIMESTAMP '2026-11-01 01:00:00'`, 'some'],
  ['timestamp_producer=gte.2026-11-01 23:30', `timestamp_producer >= TIMESTAMP '2026-11-01 23:30:00'`, 'some'],
  ['timestamp_broker=lt.2026-11-01T03:00:00%2B02:00', `timestamp_broker < TIMESTAMP '2026-11-01 01:00:00'`, 'some'],
  // JSON arrow paths (ad-hoc, on the raw value): ->> text, -> JSON; a number or time literal types the comparison.
  ['value->>status=eq.paid', `${S('$.status')} = 'paid'`, 'some'],
  ['"value"->>"status"=eq.paid', `${S('$.status')} = 'paid'`, 'some'],
  ['value->status=eq.paid', `${S('$.status')} = 'paid'`, 'some'],
  ['value->customer->address->>country=in.(DE,FR)', `${S('$.customer.address.country')} IN ('DE', 'FR')`, 'some'],
  ['value->items->0->>sku=eq.SKU-3', `${S('$.items[0].sku')} = 'SKU-3'`, 'some'],
  ['value->items->1->>price=gte.19.5', `CAST(${S('$.items[1].price')} AS double) >= 19.5`, 'some'],
  ['value->>amount=gt.400', `try_cast(${S('$.amount')} AS double) > 400`, 'some'],
  ['value->amount=lte.1', `try_cast(${S('$.amount')} AS double) <= 1`, 'some'],
  ['value->>amount=eq.twelve', `${S('$.amount')} = 'twelve'`, 'some'],
  ['value->>order_id=eq.1000001', `try_cast(${S('$.order_id')} AS double) = 1000001`, 'some'],
  ['value->>trace_id=like.9007199254740993', `${S('$.trace_id')} = '9007199254740993'`, 'some'],
  [
    'value->>created_at=lt.2026-11-01T00:30:00Z',
    `from_iso8601_timestamp(${S('$.created_at')}) < from_iso8601_timestamp('2026-11-01T00:30:00Z')`,
    'some',
  ],
  ['value->>status=like.p*', `${S('$.status')} LIKE 'p%'`, 'some'],
  ['value->>status=ilike.*AID', `lower(${S('$.status')}) LIKE '%aid'`, 'some'],
  ['value->>status=match.^(paid|shipped)$', `regexp_like(${S('$.status')}, '^(paid|shipped)$')`, 'some'],
  ['value->>status=eq(any).{paid,pending}', `${S('$.status')} IN ('paid', 'pending')`, 'some'],
  ['value->>amount=gt(all).{100,200}', `try_cast(${S('$.amount')} AS double) > 200`, 'some'],
  ['value->>status=not.in.(paid)', `NOT (${S('$.status')} IN ('paid'))`, 'some'],
  ['value->>status=isdistinct.paid', `${S('$.status')} IS DISTINCT FROM 'paid'`, 'some'],
  ['value->>amount=is.null', `${S('$.amount')} IS NULL`, 'some'],
  ['value->customer=is.not_null', `json_extract(from_utf8(value), '$.customer') IS NOT NULL`, 'some'],
  [
    'value->>customer=like.{"id":"c1"*',
    `json_format(json_extract(from_utf8(value), '$.customer')) LIKE '{"id":"c1"%'`,
    'some',
  ],
  ['value->>"été"=is.null', 'TRUE', 'all'],
  [
    'or=(value->>status.eq.paid,value->customer->address->>country.eq.DE)',
    `${S('$.status')} = 'paid' OR ${S('$.customer.address.country')} = 'DE'`,
    'some',
  ],
  ['"key"=eq.order-1000001', `${KEY} = 'order-1000001'`, 'some'],
  ['or=("key".eq.order-1000001,"key".is.null)', `${KEY} = 'order-1000001' OR key IS NULL`, 'some'],
  // Boolean groups: whitespace after or/and.
  [
    'or=(key.eq.order-1000001, and (key.is.null,timestamp_broker.lt.2026-11-01T01:00:00Z))',
    `${KEY} = 'order-1000001' OR (key IS NULL AND timestamp_broker < TIMESTAMP '2026-11-01 01:00:00')`,
    'some',
  ],
  ['not.or=(key.like(any).{order-1*},key.is.null)', `NOT (${KEY} LIKE 'order-1%' OR key IS NULL)`, 'some'],
];

/** One row of the day as the gateway shows it: keys as text, or \\x hex when not UTF-8; a NULL time as `null`. */
const ROW = `CASE WHEN key IS NULL THEN 'null' WHEN to_utf8(from_utf8(key)) = key AND NOT starts_with(from_utf8(key), '\\x') THEN from_utf8(key) ELSE '\\x' || lower(to_hex(key)) END
  || '|' || coalesce(to_iso8601(timestamp_broker) || 'Z', 'null') || '|' || coalesce(to_iso8601(timestamp_producer) || 'Z', 'null')`;
const AMOUNT = S('$.amount');

/** What hand-written SQL answers: the day's rows, each case's rows, and the day's amounts as ORDER BY sorts them. */
interface Oracle {
  all: string[];
  cases: string[][];
  amountsDesc: unknown[];
}
let oracle: Promise<Oracle> | undefined;

/**
 * Every expected answer of the file from one scan of the day: per case `array_agg(row) FILTER (WHERE <its SQL>)`,
 * which holds exactly the rows `WHERE <day> AND (<its SQL>)` returns (a FILTER keeps the rows its condition holds
 * for, as WHERE does), in one query instead of two per case. Each case still compares its own gateway read with its
 * own rows and fails alone; a case whose SQL Trino refuses fails every case, with Trino's message.
 */
function expected(): Promise<Oracle> {
  oracle ??= sql(
    `SELECT array_agg(${ROW}), array_agg(${AMOUNT} ORDER BY ${AMOUNT} DESC NULLS LAST),
            ${SUPPORTED.map(([, where]) => `array_agg(${ROW}) FILTER (WHERE ${where})`).join(',\n            ')}
     FROM orders WHERE ${DAY_SQL}`,
  ).then(([row]) => {
    const [all, amountsDesc, ...cases] = (row as (unknown[] | null)[]).map((a) => a ?? []);
    const sorted = (rows: unknown[]) => (rows as string[]).sort();
    return { all: sorted(all!), amountsDesc: amountsDesc!, cases: cases.map(sorted) };
  });
  return oracle;
}

describe('supported forms: the rows hand-written SQL with PostgREST semantics returns', () => {
  it.each(SUPPORTED.map(([params, , kind], i) => [params, kind, i] as const))('%s', async (params, kind, i) => {
    const [got, { all, cases }] = await Promise.all([gatewayRows(params), expected()]);
    const want = cases[i]!;
    expect(got).toEqual(want);
    if (kind === 'none') expect(want.length).toBe(0);
    if (kind === 'all') expect(want.length).toBe(all.length);
    if (kind === 'some') expect(want.length > 0 && want.length < all.length).toBe(true);
  });
});

// [GET parameters, the operator the 400 names]
const REFUSED: [string, string][] = [
  ['key=fts.paid', 'fts'],
  ['key=plfts(english).paid', 'plfts'],
  ['key=phfts.paid order', 'phfts'],
  ['key=wfts(simple).paid', 'wfts'],
  ['key=not.fts.paid', 'fts'],
  ['timestamp_broker=sl.(2026-11-01,2026-11-02)', 'sl'],
  ['timestamp_broker=sr.(2026-11-01,2026-11-02)', 'sr'],
  ['timestamp_broker=nxl.(2026-11-01,2026-11-02)', 'nxl'],
  ['timestamp_broker=nxr.(2026-11-01,2026-11-02)', 'nxr'],
  ['timestamp_broker=adj.(2026-11-01,2026-11-02)', 'adj'],
  ['or=(key.fts.paid,key.is.null)', 'fts'],
  ['key=in(any).{a}', 'in'],
  ['key=neq(all).{a}', 'neq'],
];

describe('refused forms: a 400 naming the operator', () => {
  it.each(REFUSED)('%s', async (params, op) => {
    const res = await app.inject(`/v1/topics/orders/events?${encodeURI(params)}&${DAY}`);
    expect(res.statusCode, res.body).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('TG_BAD_OPERATOR');
    expect(error.message).toContain(` ${op} `);
  });
});

// Other PostgREST syntax. [GET parameters, status, error code or null, text the body contains]
const SYNTAX: [string, number, string | null, string][] = [
  ['select=*&key=eq.order-1000001', 200, null, '"headers"'],
  ['select=*,status:value->>status&key=eq.order-1000001', 200, null, '"status":"pending"'],
  ['select=k:key&key=eq.order-1000001', 200, null, '"k":"order-1000001"'],
  ['select="key"&"key"=eq.order-1000001', 200, null, '"key":"order-1000001"'],
  ['offset=10', 400, 'TG_BAD_REQUEST', 'offset is not supported: follow the next cursor'],
  ['select=*,customers(*)', 400, 'TG_UNKNOWN_COLUMN', 'has no column \\"customers(*)\\"'],
  ['select=amount.sum()', 400, 'TG_UNKNOWN_COLUMN', 'has no column \\"amount.sum()\\"'],
  ['select=key::text', 400, 'TG_BAD_REQUEST', 'casts (::) have no counterpart here'],
  ['headers->0->>key=eq.trace', 400, 'TG_BAD_REQUEST', 'holds no JSON text'],
  ['value->-1->>sku=is.null', 400, 'TG_BAD_REQUEST', 'negative array indexes have no Trino counterpart here'],
  ['value->items=cs.["a"]', 400, 'TG_BAD_VALUE', 'cs takes a list in braces'],
  ['key=eq(any).(a,b)', 400, 'TG_BAD_VALUE', 'eq(any) takes a list in braces'],
  ['timestamp_broker=ov.[2026-11-01,2026-11-02)', 400, 'TG_BAD_OPERATOR', 'does not support ov'],
  ['key=is.maybe', 400, 'TG_BAD_VALUE', 'is takes null, not_null, true, false, unknown'],
  ['key=like.abc\\', 400, 'TG_BAD_VALUE', 'the pattern ends with the escape character'],
  ['key=match.(', 400, 'TG_BAD_VALUE', 'is not a regular expression'],
];

describe('other syntax: select=*, renaming, quoted names; refusals name the culprit', () => {
  it.each(SYNTAX)('%s', async (params, status, code, text) => {
    const res = await app.inject(`/v1/topics/orders/events?${encodeURI(params)}&${DAY}`);
    expect(res.statusCode, res.body).toBe(status);
    if (code) expect(res.json().error.code).toBe(code);
    expect(res.body).toContain(text);
  });

  it('order by a ->> path sorts its text as PostgreSQL does (NULLS LAST)', async () => {
    const res = await app.inject(
      `/v1/topics/orders/events?select=amount:value->>amount&order=value->>amount.desc.nullslast&limit=50&${DAY}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    // The day's amounts sorted by hand-written SQL (ORDER BY ... DESC NULLS LAST, in the oracle's one scan).
    const want = (await expected()).amountsDesc.slice(0, 50);
    expect(res.json().rows.map((r: { amount: string | null }) => r.amount)).toEqual(want);
  });
});

describe('headers and methods PostgREST clients send', () => {
  const url = `/v1/topics/orders/events?key=eq.order-1000001&${DAY}`;

  it('Range and Prefer headers are ignored: the same rows', async () => {
    const plain = await app.inject(url);
    const withHeaders = await app.inject({
      url,
      headers: { range: '0-0', 'range-unit': 'items', prefer: 'count=exact' },
    });
    expect(plain.json().rows.length).toBeGreaterThan(1);
    expect(withHeaders.json().rows).toEqual(plain.json().rows);
  });

  it('a PostgREST-specific media type is a 406', async () => {
    const res = await app.inject({ url, headers: { accept: 'application/vnd.pgrst.object+json' } });
    expect([res.statusCode, res.json().error.code]).toEqual([406, 'TG_NOT_ACCEPTABLE']);
  });

  it.each(['PATCH', 'PUT', 'DELETE'] as const)('%s on a topic does not exist (read-only)', async (method) => {
    const res = await app.inject({ method, url: '/v1/topics/orders/events?key=eq.x', payload: {} });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('TG_NOT_FOUND');
  });

  it('RPC does not exist', async () => {
    const res = await app.inject({ method: 'POST', url: '/rpc/anything', payload: {} });
    expect([res.statusCode, res.json().error.code]).toEqual([404, 'TG_NOT_FOUND']);
  });
});
