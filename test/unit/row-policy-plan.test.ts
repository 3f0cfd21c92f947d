/**
 * Row policies in the plan, without services: when a policy conjunct names a decoded
 * field (evaluated in the gateway), dedupe runs after it in the gateway too, so ranking never sees other callers'
 * events; explain says that a policy applies but never shows its filter, in the SQL, the pushdown report or the
 * filters.
 */
import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { plan } from '../../src/query/planner.js';
import { classifyPushdown } from '../../src/query/passes/pushdown.js';
import { readRequestFromBody, readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import { postDecodeRun } from '../../src/read/post-decode/post-decode-stage.js';
import { GatewayMemory } from '../../src/read/gateway-memory.js';
import { bindRowFilter, parseRowFilter } from '../../src/access/row-filter.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { json, table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { rowValues, type RowBatch } from '../../src/core/text-rows.js';

const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };
const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
];
const VALUE_TYPE = 'row(id bigint, customer row(id varchar, country varchar))';
const pay: TopicModel = {
  ...topicOf(COLUMNS, 'pay'),
  columns: new Map(
    COLUMNS.map((c) => [c.name, { ...c, source: c.name === 'value' ? { kind: 'table', framed: 'avro' } : c.source }]),
  ),
  decoded: new Map([['value', VALUE_TYPE]]),
};
const policyOn = (topic: TopicModel, filter: string) =>
  testPolicy({
    rows: { filter: bindRowFilter(parseRowFilter(filter), {}, resolver(topic)), principal: 'tenant-de' },
    postDecodeMaxRows: 100,
  });

/** Decoded rows as the payload decoder hands them on, in Trino's order (broker time, then every column). */
const DECODED = [
  { name: 'key', type: 'varbinary' },
  { name: 'value', type: VALUE_TYPE },
  { name: 'value_schema_id', type: 'integer' },
  { name: 'value_raw', type: 'varbinary' },
  { name: 'value_error', type: 'varchar' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
  { name: 'timestamp_producer', type: 'timestamp(3)' },
];
const K1 = Buffer.from('k1').toString('base64');
const K2 = Buffer.from('k2').toString('base64');
const K3 = Buffer.from('k3').toString('base64');
const at = (s: number) => `2026-11-01 00:00:0${s}.000`;
const ev = (key: string | null, s: number, country: string) => [
  key,
  [s, [`c${s}`, country]],
  1,
  null,
  null,
  at(s),
  at(s),
];
/** k1: DE then FR (FR is the latest); k2: DE only; k3: FR only; no key: DE then FR. */
const EVENTS = [
  ev(K1, 1, 'DE'),
  ev(K1, 2, 'FR'),
  ev(K2, 3, 'DE'),
  ev(K3, 4, 'FR'),
  ev(null, 5, 'DE'),
  ev(null, 6, 'FR'),
];

async function rowsOf(stream: { batches: AsyncIterable<RowBatch> }) {
  const out: unknown[][] = [];
  for await (const b of stream.batches) for (const r of rowValues(b)) out.push([...r]);
  return out;
}

describe('dedupe after every policy conjunct (finding 5)', () => {
  const policy = policyOn(pay, 'value.customer.country=eq.DE');
  const dedupe = (keep: 'latest' | 'earliest') =>
    plan(
      {
        kind: 'read',
        topic: pay,
        read: readRequestFromBody(
          { select: ['key', 'timestamp_broker'], dedupe: { by: ['key'], keep }, ...WINDOW } as never,
          resolver(pay),
        ),
        token: null,
      },
      policy,
      NOW,
    );

  it('a policy on a decoded field takes dedupe out of Trino: no ranking over other callers events', () => {
    const p = dedupe('latest');
    expect(p.tree.dedupe).toBeNull();
    expect(compileQuery(p.tree)).not.toContain('row_number');
    expect(p.postDecode).toMatchObject({ mode: 'gather', dedupe: { keep: 'latest' } });
  });

  it.each<['latest' | 'earliest', unknown[][]]>([
    // The caller's own latest event per key: k1 at 1 (its FR event at 2 is another caller's), k2, the null key at 5.
    [
      'latest',
      [
        [K1, at(1)],
        [K2, at(3)],
        [null, at(5)],
      ],
    ],
    [
      'earliest',
      [
        [K1, at(1)],
        [K2, at(3)],
        [null, at(5)],
      ],
    ],
  ])('keep %s: one event per key among the caller rows only', async (keep, want) => {
    const p = dedupe(keep);
    const run = postDecodeRun(
      p.postDecode!,
      inMemoryResult(DECODED, [EVENTS.slice(0, 3), EVENTS.slice(3)]),
      new Set(['value']),
      new GatewayMemory(2 ** 40).account(),
    );
    expect(await rowsOf(run.source)).toEqual(want);
  });

  it('bisecting until: the answer for a window never depends on events the caller may not read', async () => {
    for (let end = 1; end <= EVENTS.length; end++) {
      const p = dedupe('latest');
      const rows = EVENTS.slice(0, end);
      const run = postDecodeRun(
        p.postDecode!,
        inMemoryResult(DECODED, [rows]),
        new Set(['value']),
        new GatewayMemory(2 ** 40).account(),
      );
      const mine = rows.filter((r) => (r[1] as [number, [string, string]])[1][1] === 'DE');
      const latest = new Map(mine.map((r) => [r[0], r]));
      const want = [...latest.values()].map((r) => [r[0], r[5]]).sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1));
      expect(await rowsOf(run.source)).toEqual(want);
    }
  });
});

describe('explain shows that a row policy applies, never its text (finding 7)', () => {
  const orders = topicOf(COLUMNS, 'orders', { expanded: [json('country', 'varchar')] });
  const explained = (topic: TopicModel, policy: ReturnType<typeof testPolicy>, query: Record<string, string>) =>
    plan(
      {
        kind: 'read',
        topic,
        read: { ...readRequestFromQuery(query, resolver(topic)), ...WINDOW },
        token: null,
        explain: true,
      },
      policy,
      NOW,
    ).explain();

  it('a pushed or residual policy: not in the SQL, the pushdown report or the filters', () => {
    for (const filter of ['country=in.(DE,FR)', 'key=eq.tenant-secret']) {
      const view = explained(orders, policyOn(orders, filter), {
        select: 'key,timestamp_broker',
        timestamp_producer: 'gte.2026-11-01T00:00:00Z',
      });
      const text = JSON.stringify(view);
      expect(text).not.toContain("'DE'");
      expect(text).not.toContain('country');
      expect(text).not.toContain('tenant-secret');
      expect(view).toMatchObject({ rowPolicy: 'applied' });
      expect(view.sql).toContain('"timestamp_producer" >=');
      expect(view.filters).toContain('"timestamp_producer" >=');
    }
  });

  it('a policy evaluated in the gateway: not in the gateway list either', () => {
    const view = explained(pay, policyOn(pay, 'value.customer.country=eq.DE'), { 'value.id': 'gt.0' });
    expect(JSON.stringify(view)).not.toContain('country');
    expect(JSON.stringify(view.pushdown)).toContain('value.id');
    expect(view).toMatchObject({ rowPolicy: 'applied' });
  });

  it('what it hides still runs, and a pushable policy stays pushed', () => {
    const policy = policyOn(orders, 'key=eq.tenant-secret');
    const p = plan(
      { kind: 'read', topic: orders, read: { ...readRequestFromQuery({}, resolver(orders)), ...WINDOW }, token: null },
      policy,
      NOW,
    );
    expect(p.sql()).toContain(`"key" = X'`);
    expect(classifyPushdown(p.tree.where, { complexPredicates: false }).pushed).toContain(
      `"key" = X'${Buffer.from('tenant-secret').toString('hex')}'`,
    );
  });

  it('no policy: no mark', () => {
    expect(explained(orders, testPolicy(), {})).not.toHaveProperty('rowPolicy');
  });
});
