/**
 * Per-request caps: every list a request can multiply is counted after it is resolved into nodes, and
 * past a cap the plan is refused with a 422 naming the cap (`limits.<name>`) and its value. Requests built through
 * the real request readers (GET parameters and POST bodies), planned by the one planning entry.
 */
import { describe, expect, it } from 'vitest';
import { limitsOf, type LimitSettings } from '../../src/config/access-schema.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { plan } from '../../src/query/planner.js';
import type { ReadPolicy } from '../../src/query/tree/read-policy.js';
import { readRequestFromBody, readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import type { QueryBody } from '../../src/query/request/read-schema.js';
import { json, table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { apiError } from '../cases/api-error.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
];
const STATUS = json('status', 'varchar');
const topic: TopicModel = topicOf(COLUMNS, 'orders', { expanded: [STATUS] });
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const DAY = 86_400_000;
const SMALL: LimitSettings = {
  maxSelectItems: 3,
  maxOrderItems: 2,
  maxGroupByItems: 2,
  maxDedupeColumns: 2,
  maxFilters: 4,
  maxInValues: 5,
  maxJsonPaths: 2,
  maxBuckets: 24,
};
const policy = (caps: LimitSettings = SMALL): ReadPolicy =>
  testPolicy({
    caps: limitsOf(caps),
    guardrail: { maxWindowMs: 7 * DAY, allowFullScan: true, complexPredicates: false },
  });

const get = (q: Record<string, string | string[]>, caps?: LimitSettings) =>
  plan({ kind: 'read', topic, read: readRequestFromQuery(q, resolver(topic)), token: null }, policy(caps), NOW);
const post = (b: QueryBody, caps?: LimitSettings) =>
  plan({ kind: 'read', topic, read: readRequestFromBody(b, resolver(topic)), token: null }, policy(caps), NOW);

/** The refusal's code, status, the cap named in details, and whether the message names `limits.<cap> = <max>`. */
function refusal(f: () => unknown) {
  const err = apiError(f);
  const d = err.details as { limit: string; max: number; found: number };
  return {
    code: err.code,
    status: err.status,
    limit: d.limit,
    max: d.max,
    found: d.found,
    named: err.message.includes(`limits.${d.limit} = ${d.max}`),
  };
}
const refused = (limit: string, max: number, found: number) => ({
  code: 'TG_TOO_EXPENSIVE',
  status: 422,
  limit,
  max,
  found,
  named: true,
});

describe('per-request caps: at the cap passes, one past it is a 422 naming the cap', () => {
  const cases: [string, () => unknown, () => unknown, ReturnType<typeof refused>][] = [
    [
      'select items (GET)',
      () => get({ select: 'key,value,timestamp_broker' }),
      () => get({ select: 'key,value,timestamp_broker,timestamp_producer' }),
      refused('maxSelectItems', 3, 4),
    ],
    [
      'select items (POST, aggregates count too)',
      () =>
        post({ select: [{ fn: 'count' }, { fn: 'max', field: 'key', as: 'k' }, { fn: 'min', field: 'key', as: 'j' }] }),
      () =>
        post({
          select: [
            { fn: 'count' },
            { fn: 'max', field: 'key', as: 'k' },
            { fn: 'min', field: 'key', as: 'j' },
            { fn: 'min', field: 'timestamp_broker', as: 't' },
          ],
        }),
      refused('maxSelectItems', 3, 4),
    ],
    [
      'order items',
      () => get({ order: 'key.asc,value.desc' }),
      () => get({ order: 'key.asc,value.desc,timestamp_producer' }),
      refused('maxOrderItems', 2, 3),
    ],
    [
      'group keys',
      () => post({ select: [{ fn: 'count' }], groupBy: ['key', 'status'] }),
      () => post({ select: [{ fn: 'count' }], groupBy: ['key', 'status', 'timestamp_producer'] }),
      refused('maxGroupByItems', 2, 3),
    ],
    [
      'dedupe columns',
      () => post({ dedupe: { by: ['key', 'value'] } }),
      () => post({ dedupe: { by: ['key', 'value', 'timestamp_producer'] } }),
      refused('maxDedupeColumns', 2, 3),
    ],
    [
      'filters, counted through or= groups and repeated parameters',
      () => get({ key: ['neq.a', 'neq.b'], or: '(status.eq.x,status.eq.y)' }),
      () => get({ key: ['neq.a', 'neq.b'], or: '(status.eq.x,status.eq.y,and(status.neq.z))' }),
      refused('maxFilters', 4, 5),
    ],
    [
      'filters, an any-quantified list counting as the comparisons it becomes',
      () => get({ timestamp_producer: 'gt(any).{2026-11-01,2026-11-02,2026-11-03,2026-11-04}' }),
      () => get({ timestamp_producer: 'gt(any).{2026-11-01,2026-11-02,2026-11-03,2026-11-04,2026-11-05}' }),
      refused('maxFilters', 4, 5),
    ],
    [
      'in values in total across the request (each list under the cap alone)',
      () => get({ key: 'in.(a,b,c)', status: 'in.(x,y)' }),
      () => get({ key: 'in.(a,b,c)', status: 'in.(x,y)', or: '(value.in.(p),key.is.null)' }),
      refused('maxInValues', 5, 6),
    ],
    [
      'in values of POST where lists',
      () => post({ where: { field: 'key', op: 'in', value: ['a', 'b', 'c', 'd', 'e'] } }),
      () =>
        post({
          where: {
            and: [
              { field: 'key', op: 'in', value: ['a', 'b', 'c', 'd', 'e'] },
              { field: 'status', op: 'in', value: ['x'] },
            ],
          },
        }),
      refused('maxInValues', 5, 6),
    ],
    [
      'distinct JSON arrow paths (the same path twice counts once)',
      () => get({ select: 'value->>a,value->>b', 'value->>a': 'eq.1', since: '-1h' }),
      () => get({ select: 'value->>a,value->>b', 'value->>c': 'eq.1', since: '-1h' }),
      refused('maxJsonPaths', 2, 3),
    ],
    [
      'time buckets over since..until',
      () =>
        post({
          select: [{ fn: 'count' }],
          groupBy: [{ bucket: '1h' }],
          since: '2026-11-01T00:00:00Z',
          until: '2026-11-02T00:00:00Z',
        }),
      () =>
        post({
          select: [{ fn: 'count' }],
          groupBy: [{ bucket: '59m' }],
          since: '2026-11-01T00:00:00Z',
          until: '2026-11-02T00:00:00Z',
        }),
      refused('maxBuckets', 24, 25),
    ],
  ];
  it.each(cases)('%s', (_name, ok, over, expected) => {
    expect(ok).not.toThrow();
    expect(refusal(over)).toEqual(expected);
  });

  it('the defaults apply when the config names no caps, and a row policy is not counted', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const scope = { filter: get({ key: `in.(${keys.join(',')})` }, {}).userWhere, principal: 'p' };
    const p = { ...policy({}), rows: scope };
    const read = readRequestFromQuery({ key: 'in.(x)' }, resolver(topic));
    expect(() => plan({ kind: 'read', topic, read, token: null }, p, NOW)).not.toThrow();
    const over = readRequestFromQuery(
      { key: `in.(${keys.slice(0, 600).join(',')})`, value: `in.(${keys.slice(0, 401).join(',')})` },
      resolver(topic),
    );
    expect(refusal(() => plan({ kind: 'read', topic, read: over, token: null }, p, NOW))).toEqual(
      refused('maxInValues', 1000, 1001),
    );
  });

  it('a cursor batch is held to the same caps (its filter is a request too)', () => {
    const read = readRequestFromBody(
      { where: { field: 'key', op: 'in', value: ['a', 'b', 'c', 'd', 'e', 'f'] } },
      resolver(topic),
    );
    const batch = () => plan({ kind: 'batch', topic, read, from: { ts: null, skip: 0 }, untilMs: NOW }, policy(), NOW);
    expect(refusal(batch)).toEqual(refused('maxInValues', 5, 6));
  });
});

describe('nesting depth (limits.maxDepth): a filter or column is 1, each group, not. and arrow step adds 1', () => {
  const nots = (n: number) => `${'not.'.repeat(n)}eq.a`;
  const deep = (depth: number): LimitSettings => ({ ...SMALL, maxDepth: depth });

  it.each<[string, () => unknown, () => unknown, ReturnType<typeof refused>]>([
    [
      'not. chains at the default (64)',
      () => get({ key: nots(63) }, {}),
      () => get({ key: nots(64) }, {}),
      refused('maxDepth', 64, 65),
    ],
    [
      'not. chains under a configured cap',
      () => get({ key: nots(4) }, deep(5)),
      () => get({ key: nots(5) }, deep(5)),
      refused('maxDepth', 5, 6),
    ],
    [
      'groups and repeated parameters count as levels',
      () => get({ key: 'neq.a', or: '(key.eq.b,and(key.not.eq.c,key.eq.d))' }, deep(5)),
      () => get({ key: 'neq.a', or: '(key.eq.b,and(key.not.not.eq.c,key.eq.d))' }, deep(5)),
      refused('maxDepth', 5, 6),
    ],
    [
      'POST where nesting',
      () => post({ where: { not: { not: { field: 'key', op: 'eq', value: 'a' } } } }, deep(3)),
      () => post({ where: { not: { not: { not: { field: 'key', op: 'eq', value: 'a' } } } } }, deep(3)),
      refused('maxDepth', 3, 4),
    ],
    [
      'arrow steps of a filtered path',
      () => get({ 'value->a->>b': 'eq.1', since: '-1h' }, deep(3)),
      () => get({ 'value->a->b->>c': 'eq.1', since: '-1h' }, deep(3)),
      refused('maxDepth', 3, 4),
    ],
  ])('%s', (_name, ok, over, expected) => {
    expect(ok).not.toThrow();
    expect(refusal(over)).toEqual(expected);
  });

  it('arrow steps of a selected, ordered or grouped path count too (the parameter named is select)', () => {
    expect(() => get({ select: 'value->a->>b', since: '-1h' }, deep(3))).not.toThrow();
    const e = refusal(() => get({ select: 'value->a->b->>c', since: '-1h' }, deep(3)));
    expect(e).toEqual(refused('maxDepth', 3, 4));
    expect(refusal(() => get({ order: 'value->a->b->>c', since: '-1h' }, deep(3)))).toEqual(refused('maxDepth', 3, 4));
  });

  it('past the most limits.maxDepth can be set to, the parser refuses the chain before any tree is built', () => {
    const atCeiling = { ...SMALL, maxDepth: 256 };
    expect(() => get({ key: nots(255) }, atCeiling)).not.toThrow();
    for (const n of [256, 1000, 100_000]) {
      const e = refusal(() => get({ key: nots(n) }, atCeiling));
      expect(e).toEqual({
        code: 'TG_TOO_EXPENSIVE',
        status: 422,
        limit: 'maxDepth',
        max: 256,
        found: n + 1,
        named: false,
      });
    }
    // Inside a group too.
    expect(refusal(() => get({ or: `(key.${nots(300)},key.eq.b)` }, atCeiling))).toMatchObject({
      limit: 'maxDepth',
      max: 256,
    });
  });
});
