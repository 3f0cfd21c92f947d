/**
 * Pushdown, proved on a connector that really pushes down. The demo topics are copied into the `vastpg` catalog
 * (Trino's PostgreSQL connector; test/global-setup.ts starts PostgreSQL and loads the copy) and the gateway's
 * explain output is read there: Trino's plain EXPLAIN text (`plan`) must show the time range inside the table
 * scan and the JSON-field filter in a filter node above it, and the classifier (`pushdown`) must say the same.
 * The memory catalog `vast`, which pushes nothing, is the negative control: there the very same time range
 * shows up in a ScanFilter node, so the plan reading below can tell the two apart.
 *
 * Not asserted as pushed on PostgreSQL, by that connector's own limits (TRINO_NOTES.md): varbinary predicates
 * and varchar ranges.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { PG_CATALOG, PG_SCHEMA } from '../../scripts/load-demo.js';
import { sql, testApp } from '../helpers.js';

// 24 hours of demo orders (one event per 20 s, with ties and duplicates), not aligned to the data's start.
const SINCE = '2026-11-01T06:00:00Z';
const UNTIL = '2026-11-02T06:00:00Z';
const SINCE_SQL = "TIMESTAMP '2026-11-01 06:00:00.000'";
const UNTIL_SQL = "TIMESTAMP '2026-11-02 06:00:00.000'";
const PUSHED_TIME = [`"timestamp_broker" >= ${SINCE_SQL}`, `"timestamp_broker" < ${UNTIL_SQL}`];

const CONFIG_YAML = 'topics:\n  orders:\n    expand:\n      status: { path: "$.status", type: varchar }\n';

let dir: string;
let pg: FastifyInstance;
let mem: FastifyInstance;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'topicgate-pushdown-'));
  const config = join(dir, 'topics.yaml');
  writeFileSync(config, CONFIG_YAML);
  pg = await testApp({ TOPICGATE_CATALOG: PG_CATALOG, TOPICGATE_SCHEMAS: PG_SCHEMA, TOPICGATE_CONFIG: config });
  mem = await testApp({ TOPICGATE_CONFIG: config });
});

afterAll(async () => {
  await pg?.close();
  await mem?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Explain {
  sql: string;
  pushdown: { pushed: string[]; residual: string[] };
  plan: string;
}

/** A scan node of the plain EXPLAIN text: its kind, its table handle text, and its filterPredicate if any. */
interface ScanNode {
  node: string;
  table: string;
  filter: string | null;
}

const SCAN_LINE =
  /\b(TableScan|ScanFilter|ScanProject|ScanFilterProject)\[table = (.*?)(?:, filterPredicate = (.*))?\]$/;

function scans(plan: string): ScanNode[] {
  const out: ScanNode[] = [];
  for (const line of plan.split('\n')) {
    const m = SCAN_LINE.exec(line.trimEnd());
    if (m) out.push({ node: m[1]!, table: m[2]!, filter: m[3] ?? null });
  }
  return out;
}

/** The one scan of a single-table plan. */
function theScan(plan: string): ScanNode {
  const all = scans(plan);
  expect(all, plan).toHaveLength(1);
  return all[0]!;
}

/** Every predicate Trino evaluates itself: the filterPredicate of each filter-bearing node (Filter, ScanFilter, ...). */
function filterPredicates(plan: string): string[] {
  return plan
    .split('\n')
    .filter((line) => /\b\w*Filter\w*\[/.test(line))
    .map((line) => /filterPredicate = (.*)\]\s*$/.exec(line)?.[1])
    .filter((p): p is string => p !== undefined);
}

/** Columns the PostgreSQL table handle carries a pushed constraint on (`constraint on [a, b]`). */
function constrainedColumns(table: string): string[] {
  const m = /constraint on \[([^\]]*)\]/.exec(table);
  return m ? m[1]!.split(',').map((s) => s.trim()) : [];
}

/** The column a classifier predicate constrains: its first double-quoted identifier. */
function predicateColumn(p: string): string | undefined {
  return /"([^"]+)"/.exec(p)?.[1];
}

async function explainGet(app: FastifyInstance, query: string): Promise<Explain> {
  const res = await app.inject(`/v1/topics/orders/events?explain=true&${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Explain;
}

async function explainPost(app: FastifyInstance, body: Record<string, unknown>): Promise<Explain> {
  const res = await app.inject({ method: 'POST', url: '/v1/topics/orders/query', payload: { ...body, explain: true } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Explain;
}

async function countVia(app: FastifyInstance, body: Record<string, unknown>): Promise<number> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/topics/orders/query',
    payload: { select: [{ fn: 'count', as: 'n' }], since: SINCE, until: UNTIL, ...body },
  });
  expect(res.statusCode, res.body).toBe(200);
  const rows = res.json().rows as { n: number }[];
  expect(rows).toHaveLength(1);
  return Number(rows[0]!.n);
}

const TIME_QUERY = `since=${encodeURIComponent(SINCE)}&until=${encodeURIComponent(UNTIL)}`;
const STATUS_PAID = { field: 'status', op: 'eq', value: 'paid' };

describe('pushdown on PostgreSQL (vastpg): the time range lands in the table scan', () => {
  it('GET since/until: the scan carries the constraint, no filter node evaluates timestamp_broker', async () => {
    const e = await explainGet(pg, TIME_QUERY);
    expect(e.pushdown).toEqual({ pushed: PUSHED_TIME, residual: [] });
    const scan = theScan(e.plan);
    expect(scan.table).toMatch(/^vastpg:demo_topics\.orders /);
    expect(constrainedColumns(scan.table)).toEqual(['timestamp_broker']);
    // Nothing left for Trino to evaluate: a bare TableScan, and no filter node anywhere in the plan.
    expect(scan.node).toBe('TableScan');
    expect(scan.filter).toBeNull();
    expect(filterPredicates(e.plan)).toEqual([]);
  });

  it('GET since/until plus a JSON field: time in the scan, the JSON filter in a filter node above it', async () => {
    const e = await explainGet(pg, `${TIME_QUERY}&status=eq.paid`);
    // The classifier: the two time bounds pushed, the expression over `value` residual.
    expect(e.pushdown.pushed).toEqual(PUSHED_TIME);
    expect(e.pushdown.residual).toHaveLength(1);
    expect(e.pushdown.residual[0]).toMatch(/^json_extract_scalar\(.*"value".*'\$\["status"\]'\) = 'paid'$/);
    // The plan: the scan's handle holds the time constraint and nothing on `value`...
    const scan = theScan(e.plan);
    expect(constrainedColumns(scan.table)).toEqual(['timestamp_broker']);
    // ...and Trino evaluates the JSON filter itself, with no time bound left in any filter.
    const filters = filterPredicates(e.plan);
    expect(filters).toHaveLength(1);
    expect(filters[0]).toMatch(/json_extract_scalar\(.*\bvalue\b.*JsonPath '\$\["status"\]'\) = varchar 'paid'/);
    for (const f of filters) expect(f).not.toContain('timestamp_broker');
  });

  it('POST {explain:true}: the same split, and the classifier agrees with the plan column by column', async () => {
    const e = await explainPost(pg, { since: SINCE, until: UNTIL, where: STATUS_PAID });
    expect(e.pushdown.pushed).toEqual(PUSHED_TIME);
    expect(e.pushdown.residual).toHaveLength(1);
    const scan = theScan(e.plan);
    const constrained = constrainedColumns(scan.table);
    // Every predicate the classifier calls pushed constrains a column the connector took into its handle...
    for (const p of e.pushdown.pushed) expect(constrained).toContain(predicateColumn(p));
    // ...and no pushed column is evaluated again by Trino, while each residual one is.
    const filters = filterPredicates(e.plan);
    for (const c of new Set(e.pushdown.pushed.map(predicateColumn))) {
      for (const f of filters) expect(f).not.toMatch(new RegExp(`\\b${c}\\b`));
    }
    expect(e.pushdown.residual[0]).toContain('json_extract_scalar');
    expect(filters.some((f) => f.includes('json_extract_scalar') && f.includes("'paid'"))).toBe(true);
  });

  it('POST count over the time range: the whole aggregation runs in PostgreSQL, the time range in its WHERE', async () => {
    const e = await explainPost(pg, { select: [{ fn: 'count', as: 'n' }], since: SINCE, until: UNTIL });
    expect(e.pushdown).toEqual({ pushed: PUSHED_TIME, residual: [] });
    const scan = theScan(e.plan);
    // The handle is the remote query itself (bind parameters stand for the two timestamps).
    expect(scan.table).toMatch(/^vastpg:Query\[SELECT count\(\*\)/);
    expect(scan.table).toContain('"timestamp_broker" >= ?');
    expect(scan.table).toContain('"timestamp_broker" < ?');
    expect(filterPredicates(e.plan)).toEqual([]);
    expect(e.plan).not.toMatch(/Aggregate\[type = (PARTIAL|FINAL)\]/);
  });

  it('POST count with a JSON field: the time range still pushed, the JSON filter and the count stay in Trino', async () => {
    const e = await explainPost(pg, {
      select: [{ fn: 'count', as: 'n' }],
      since: SINCE,
      until: UNTIL,
      where: STATUS_PAID,
    });
    expect(e.pushdown.pushed).toEqual(PUSHED_TIME);
    const scan = theScan(e.plan);
    expect(constrainedColumns(scan.table)).toEqual(['timestamp_broker']);
    expect(scan.filter).toMatch(/json_extract_scalar\(.*= varchar 'paid'/);
    expect(scan.filter).not.toContain('timestamp_broker');
    expect(e.plan).toMatch(/Aggregate\[type = PARTIAL\]/);
  });
});

describe('negative control: the memory catalog (vast) pushes nothing, and the plan reading tells', () => {
  it('GET since/until: the same time range is a ScanFilter predicate, the scan has no constraint', async () => {
    const e = await explainGet(mem, TIME_QUERY);
    // The classifier follows VAST's rules, not the connector's: it still says pushed (VAST would push it).
    expect(e.pushdown).toEqual({ pushed: PUSHED_TIME, residual: [] });
    const scan = theScan(e.plan);
    expect(scan.table).toMatch(/^vast:/);
    expect(constrainedColumns(scan.table)).toEqual([]);
    expect(scan.node).toBe('ScanFilter');
    expect(scan.filter).toContain("timestamp_broker >= timestamp(3) '2026-11-01 06:00:00.000'");
    expect(scan.filter).toContain("timestamp_broker < timestamp(3) '2026-11-02 06:00:00.000'");
  });

  it('GET since/until plus a JSON field: time range and JSON filter evaluated together by Trino', async () => {
    const e = await explainGet(mem, `${TIME_QUERY}&status=eq.paid`);
    const filters = filterPredicates(e.plan);
    expect(filters).toHaveLength(1);
    expect(filters[0]).toContain('timestamp_broker >= timestamp(3)');
    expect(filters[0]).toContain('timestamp_broker < timestamp(3)');
    expect(filters[0]).toMatch(/json_extract_scalar\(.*= varchar 'paid'/);
    expect(constrainedColumns(theScan(e.plan).table)).toEqual([]);
  });
});

describe('results: the pushed-down reads return what the unpushed ones do', () => {
  it('the PostgreSQL copy holds every demo row', async () => {
    for (const t of ['orders', 'clicks', 's3_events', 'orders_expanded']) {
      const [[n]] = (await sql(`SELECT count(*) FROM "demo|kafka_topics"."${t}"`)) as [[number]];
      const [[m]] = (await sql(`SELECT count(*) FROM ${PG_CATALOG}.${PG_SCHEMA}."${t}"`)) as [[number]];
      expect(Number(m), t).toBe(Number(n));
      expect(Number(n), t).toBeGreaterThan(0);
    }
  });

  it('POST count over the time range, with and without the JSON field: same on vastpg, vast and direct SQL', async () => {
    const where = `timestamp_broker >= ${SINCE_SQL} AND timestamp_broker < ${UNTIL_SQL}`;
    const [[all, paid]] = (await sql(
      `SELECT count(*), count_if(json_extract_scalar(from_utf8(value), '$.status') = 'paid') FROM orders WHERE ${where}`,
    )) as [[number, number]];
    expect(Number(paid)).toBeGreaterThan(0);
    expect(Number(all)).toBeGreaterThan(Number(paid));
    expect(await countVia(pg, {})).toBe(Number(all));
    expect(await countVia(mem, {})).toBe(Number(all));
    expect(await countVia(pg, { where: STATUS_PAID })).toBe(Number(paid));
    expect(await countVia(mem, { where: STATUS_PAID })).toBe(Number(paid));
  });

  it('GET since/until&status=eq.paid: the same rows, in the same order, on vastpg and vast', async () => {
    const url = `/v1/topics/orders/events?${TIME_QUERY}&status=eq.paid&select=key,value,timestamp_broker,timestamp_producer,status&limit=5000`;
    const [a, b] = await Promise.all([pg.inject(url), mem.inject(url)]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode, b.body).toBe(200);
    const rowsPg = a.json().rows as Record<string, unknown>[];
    const rowsMem = b.json().rows as Record<string, unknown>[];
    expect(a.json().complete).toBe(true);
    expect(rowsPg.length).toBeGreaterThan(0);
    expect(rowsPg.every((r) => r.status === 'paid')).toBe(true);
    expect(rowsPg).toEqual(rowsMem);
  });
});

describe("PostgREST's operators: the classifier's labels hold on a connector that pushes down", () => {
  const P = 'timestamp_producer';
  // [GET filter, the column the scan must carry a constraint on (pushed), or null when Trino must filter (residual)]
  const CASES: [string, string | null][] = [
    [`${P}=isdistinct.2026-11-01T12:00:00Z`, P],
    [`${P}=is.not_null`, P],
    [`${P}=eq(any).{2026-11-01T12:00:00Z,2026-11-01T12:00:20Z}`, P],
    [`${P}=gte(all).{2026-11-01T12:00:00Z,2026-11-01T13:00:00Z}`, P],
    ['value->>status=eq.paid', null],
    ['key=match.^order-1', null],
    ['key=like(any).{order-1*,order-2*}', null],
    ['value->items->0->>sku=eq.SKU-1', null],
  ];
  it.each(CASES)('%s', async (filter, column) => {
    const e = await explainGet(pg, `${TIME_QUERY}&${encodeURI(filter)}`);
    const own = [...e.pushdown.pushed, ...e.pushdown.residual].filter((p) => !PUSHED_TIME.includes(p));
    expect(own.length).toBeGreaterThan(0); // gte(all) is two conjuncts
    const scan = theScan(e.plan);
    if (column) {
      expect(e.pushdown.residual).toEqual([]);
      expect(constrainedColumns(scan.table).sort()).toEqual([column, 'timestamp_broker'].sort());
    } else {
      expect(e.pushdown.residual).toEqual(own);
      expect(constrainedColumns(scan.table)).toEqual(['timestamp_broker']);
      expect(filterPredicates(e.plan).length).toBeGreaterThan(0);
    }
  });
});
