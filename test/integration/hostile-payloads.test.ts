/**
 * Hostile payloads: events whose JSON nests 10^2..10^5 deep (objects and arrays), in a table of their own (a schema
 * of the shared Trino's memory catalog, created and dropped here), read in every format, through arrow paths
 * (selected, filtered, aggregated), by inference and by a cursor. A deep payload is data: each answer is a 200 or
 * a 4xx with a TG_ code, never a 5xx, and the gateway serves a normal request afterwards.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testApp, trinoUrl } from '../helpers.js';

const SCHEMA = 'hostile_payloads|kafka_topics';
const TABLE = `vast."${SCHEMA}".deep`;
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });

/** Trino text of a payload: `{"a":` n times (or `{"a":` then n `[`) around 1. */
const objects = (n: number) => `concat(lpad('', ${5 * n}, '{"a":'), '1', lpad('', ${n}, '}'))`;
const arrays = (n: number) => `concat('{"a":', lpad('', ${n}, '['), '1', lpad('', ${n}, ']'), '}')`;
/** Event i is at second i: the first five nest at most 10^3 deep, the last four 10^4 and 10^5. */
const PAYLOADS = [
  `'{"a":{"a":1}}'`,
  ...[100, 1_000].flatMap((n) => [objects(n), arrays(n)]),
  ...[10_000, 100_000].flatMap((n) => [objects(n), arrays(n)]),
];
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z';
const SHALLOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T00:00:05Z';
/** A topic table's columns (scripts/demo-data.ts TOPIC_COLUMNS) by name: the VALUES rows give their types. */
const COLUMN_NAMES = 'key, value, timestamp_broker, timestamp_producer, headers';
/**
 * Reads that set no order of their own read in descending broker time: one Trino query a read, where ascending
 * time is read as time slices (read/sliced-result.ts), up to three queries for the same rows. Every event is still
 * read, and a failure of Trino on any payload comes before the first row (a status, not a cut stream).
 */
const DESC = 'order=timestamp_broker.desc';

let app: FastifyInstance;
beforeAll(async () => {
  // A schema left by an interrupted run goes with its table; the table is made with its rows in one statement.
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}" CASCADE`);
  await trino.all(`CREATE SCHEMA vast."${SCHEMA}"`);
  const rows = PAYLOADS.map(
    (v, i) =>
      `(to_utf8('k${i}'), to_utf8(${v}), TIMESTAMP '2026-11-01 00:00:00.000' + INTERVAL '${i}' SECOND, ` +
      `TIMESTAMP '2026-11-01 00:00:00.000', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`,
  );
  await trino.all(`CREATE TABLE ${TABLE} AS SELECT * FROM (VALUES ${rows.join(', ')}) AS v(${COLUMN_NAMES})`);
  app = await testApp({ TOPICGATE_SCHEMAS: SCHEMA });
});
afterAll(async () => {
  await app?.close();
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}" CASCADE`);
});

/** The answer: a 2xx or a 4xx with a TG_ code; its status and time. */
async function answer(req: InjectOptions | string): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  const res = await app.inject(req);
  const ms = performance.now() - started;
  const what = `${typeof req === 'string' ? req : JSON.stringify(req.payload)}: ${res.body.slice(0, 300)}`;
  expect(res.statusCode, what).toBeLessThan(500);
  if (res.statusCode >= 300) expect(res.json().error.code, what).toMatch(/^TG_[A-Z_]+$/);
  return { status: res.statusCode, ms, body: res.body };
}

const url = (q: string, window = WINDOW) => `/v1/topics/deep/events?${window}&${q}`;

/** Reads through a JSON subtree (`->` as the last step, or `->>` selected): Trino's json_extract. */
const THROUGH_JSON_EXTRACT: [string, string][] = [
  ['a selected arrow path', 'select=key,value->a->a->>a'],
  ['a selected JSON subtree', 'select=key,value->a->a'],
  ['a selected deep path', `select=key,value${'->a'.repeat(15)}`],
  ['an ordered arrow path', 'order=value->a->>a'],
];

/**
 * Trino's JSON functions refuse a document nesting deeper than 1000 (Jackson's StreamReadConstraints) with a
 * GENERIC_INTERNAL_ERROR that try() does not catch: Trino failed on the data, a 502 TG_TRINO_FAILED, not a 500.
 */
function trinoRefusedTheDocument(body: string): void {
  expect(JSON.parse(body)).toMatchObject({
    error: { code: 'TG_TRINO_FAILED', status: 502, details: { errorName: 'GENERIC_INTERNAL_ERROR' } },
  });
}

describe('deeply nested payloads are data', () => {
  it.each(['json', 'ndjson', 'csv', 'arrow', 'parquet'])('every event, as %s', async (format) => {
    const res = await answer(url(`format=${format}&limit=100&${DESC}`));
    expect(res.status).toBe(200);
  });

  it('the JSON answer carries every payload', async () => {
    const res = await app.inject(url(`limit=100&${DESC}`));
    expect(res.statusCode).toBe(200);
    // JSON.parse does not recurse: the answer parses however deep the payloads nest.
    expect((JSON.parse(res.body) as { rows: unknown[][] }).rows).toHaveLength(PAYLOADS.length);
  });

  it.each([
    ...THROUGH_JSON_EXTRACT,
    ['a filtered arrow path', 'value->a->>a=eq.1'],
    ['a filtered array path', 'value->a->0->0->>0=eq.1'],
    // Over the deeper payloads too this reads through json_extract, but in a filter: Trino may fail after the
    // first rows were sent, and a stream is cut rather than answered with a status.
    ['a path tested with is', 'value->a->>a=is.not_null'],
  ])('%s, payloads up to 10^3 deep', async (_name, q) => {
    const res = await answer(url(`${q}&limit=100${q.includes('order=') ? '' : `&${DESC}`}`, SHALLOW));
    expect(res.status, res.body.slice(0, 300)).toBe(200);
  });

  it.each([
    ['a filtered arrow path', 'value->a->>a=eq.1'],
    ['a filtered array path', 'value->a->0->0->>0=eq.1'],
  ])('%s, payloads up to 10^5 deep', async (_name, q) => {
    const res = await answer(url(`${q}&limit=100&${DESC}`));
    expect(res.status, res.body.slice(0, 300)).toBe(200);
  });

  it.each(THROUGH_JSON_EXTRACT)('%s, payloads up to 10^5 deep: Trino refuses the document', async (_name, q) => {
    const res = await app.inject(url(`${q}&limit=100`));
    trinoRefusedTheDocument(res.body);
  });

  it('an aggregate over an arrow path', async () => {
    const select = [
      { fn: 'count', as: 'n' },
      { fn: 'max', field: 'value->a->>a', as: 'm' },
    ];
    const query = (until: string) => ({
      method: 'POST' as const,
      url: '/v1/topics/deep/query',
      payload: { select, since: '2026-11-01T00:00:00Z', until },
    });
    const res = await answer(query('2026-11-01T00:00:05Z'));
    expect(res.status, res.body).toBe(200);
    trinoRefusedTheDocument((await app.inject(query('2026-11-01T00:01:00Z'))).body);
  });

  it('inference over every payload', async () => {
    const res = await answer(`/v1/topics/deep/schema/infer?${WINDOW}`);
    expect(res.status, res.body.slice(0, 300)).toBe(200);
  });

  it('a cursor whose filter reads a path, and its batch', async () => {
    const filter = { field: 'value->a->>a', op: 'eq', value: '1' };
    const created = await answer({
      method: 'PUT',
      url: '/v1/cursors/deep-payloads',
      payload: { topic: 'deep', start: '2026-11-01T00:00:00Z', filter },
    });
    expect(created.status, created.body).toBeLessThan(300);
    const batch = await answer({ method: 'POST', url: '/v1/cursors/deep-payloads/read?limit=100' });
    expect(batch.status, batch.body.slice(0, 300)).toBe(200);
  });

  it('afterwards the gateway still serves', async () => {
    expect((await app.inject(url(`limit=1&${DESC}`))).statusCode).toBe(200);
  });
});
