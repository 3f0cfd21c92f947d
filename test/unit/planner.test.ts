/**
 * The one planning entry: every kind of read goes through plan(), and each pass it runs refuses or shapes the
 * read the same way whichever route asked (events, explain, inference, cursor batches and lag).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import type { ColumnNode, PredicateNode } from '../../src/query/tree/nodes.js';
import type { ReadRequest } from '../../src/query/tree/read-request.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { batchUntil, plan } from '../../src/query/planner.js';
import { readPolicy } from '../../src/query/policy-from-settings.js';
import type { ReadPolicy } from '../../src/query/tree/read-policy.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { refusal } from '../cases/api-error.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
  table('headers', 'array(row(key varchar, value varbinary))'),
];
const STATUS: ColumnNode = {
  kind: 'column',
  name: 'status',
  type: 'varchar',
  source: { kind: 'json', from: 'value', path: ['status'] },
};
const orders: TopicModel = topicOf(COLUMNS, 'orders', { expanded: [STATUS] });
const items: TopicModel = topicOf([], 'items', { kind: 'table' });
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const POLICY: ReadPolicy = testPolicy();
/** A filter the storage cannot evaluate (a JSON field) and one it can (the key). */
const RESIDUAL: PredicateNode = {
  kind: 'compare',
  op: 'eq',
  column: STATUS,
  value: { kind: 'literal', type: 'varchar', value: { t: 'varchar', v: 'paid' } },
};
const PUSHED: PredicateNode = { kind: 'is', column: COLUMNS[0]!, what: 'null' };
/** A range on broker time, pushed to the storage: `timestamp_broker=<op>.<instant>`. */
const brokerTime = (op: 'gte' | 'lt', iso: string): PredicateNode => ({
  kind: 'compare',
  op,
  column: COLUMNS[2]!,
  value: { kind: 'literal', type: 'timestamp(3)', value: { t: 'timestamp', epochMs: Date.parse(iso), subMs: '' } },
});
const KEY_EQ: PredicateNode = {
  kind: 'compare',
  op: 'eq',
  column: COLUMNS[0]!,
  value: { kind: 'literal', type: 'varbinary', value: { t: 'varbinary', v: Buffer.from('k1') } },
};
const all = (...items: PredicateNode[]): PredicateNode => ({ kind: 'and', items });

describe('plan: events and explain', () => {
  const read = (where: PredicateNode | null, since?: string, explain = false) =>
    plan({ kind: 'read', topic: orders, read: { where, since }, token: null, explain }, POLICY, NOW);

  it('a read whose filters are all residual needs since (the guardrail runs for every read)', () => {
    expect(refusal(() => read(RESIDUAL))[0]).toBe('TG_TIME_BOUND_REQUIRED');
    expect(read(RESIDUAL, '-1h').tree.limit).toBe(100);
    expect(read(PUSHED).refused).toBeUndefined();
  });

  it('a pushed filter that bounds no window does not switch the guardrail off', () => {
    // A lower bound alone: the window read is 1970..now.
    const epoch = all(brokerTime('gte', '1970-01-01T00:00:00Z'), RESIDUAL);
    expect(refusal(() => read(epoch))[0]).toBe('TG_TIME_BOUND_REQUIRED');
    // A filter the storage takes but that may keep every event (IS NULL, a range on another column).
    expect(refusal(() => read(all(PUSHED, RESIDUAL)))[0]).toBe('TG_TIME_BOUND_REQUIRED');
    // since as well, as far back: the window is as wide, whichever of the two bounds it.
    expect(refusal(() => read(epoch, '1971-01-01T00:00:00Z'))[0]).toBe('TG_TIME_BOUND_REQUIRED');
  });

  it('ranges on broker time that close a window within the limit stand for since/until', () => {
    const hour = all(brokerTime('gte', '2026-11-30T06:00:00Z'), brokerTime('lt', '2026-11-30T07:00:00Z'), RESIDUAL);
    expect(read(hour).tree.limit).toBe(100);
    // A lower bound an hour ago: the read's window (pinned to now) is an hour wide.
    expect(read(all(brokerTime('gte', '2026-11-30T07:00:00Z'), RESIDUAL)).tree.limit).toBe(100);
    const wide = all(brokerTime('gte', '2026-11-01T00:00:00Z'), brokerTime('lt', '2026-11-30T00:00:00Z'), RESIDUAL);
    expect(refusal(() => read(wide))[2]).toMatch(/narrow since\/until to at most 168h \(the window is 696h\)/);
  });

  it('a selective filter the storage takes (a key equality) reads only its events: no bound needed', () => {
    expect(read(all(KEY_EQ, RESIDUAL)).refused).toBeUndefined();
  });

  it('explain reports the refusal instead of throwing, with the tree it would run', () => {
    const p = read(RESIDUAL, undefined, true);
    expect(p.refused?.code).toBe('TG_TIME_BOUND_REQUIRED');
    expect(p.tree.where).toMatchObject({ kind: 'and' });
  });

  it('a topic that allows full scans is not refused', () => {
    const open = { ...POLICY, guardrail: { ...POLICY.guardrail, allowFullScan: true } };
    expect(plan({ kind: 'read', topic: orders, read: { where: RESIDUAL }, token: null }, open, NOW).refused).toBe(
      undefined,
    );
  });
});

describe('plan: bulk reads (limit=all)', () => {
  const WINDOW = { since: '2026-11-30T00:00:00Z', until: '2026-11-30T04:00:00Z' };
  const bulk = (read: Partial<ReadRequest>, policy = POLICY) =>
    plan(
      { kind: 'read', topic: orders, read: { where: null, limit: 'all', ...WINDOW, ...read }, token: null },
      policy,
      NOW,
    );

  it('parallel=N: N adjacent whole-millisecond slices covering the window, N at a time', () => {
    const b = bulk({ parallel: 4 }).bulk!;
    const lo = Date.parse(WINDOW.since);
    expect(b.bounds).toEqual([0, 1, 2, 3, 4].map((i) => lo + i * HOUR));
    expect([b.concurrency, b.ordered, bulk({ parallel: 4 }).tree.limit]).toEqual([4, true, Infinity]);
  });

  it('a read the slices cannot serve: refused when the request asks for parallel, one query with the topic default', () => {
    const byKey = { parallel: 2, order: [{ field: 'key' }] };
    expect(refusal(() => bulk(byKey)).slice(0, 2)).toEqual(['TG_BAD_REQUEST', 400]);
    const topicDefault = { ...POLICY, parallel: { default: 3, max: 4 } };
    expect(bulk({ order: [{ field: 'key' }] }, topicDefault).bulk).toBeNull();
    expect(bulk({}, topicDefault).bulk?.concurrency).toBe(3);
  });
});

describe('plan: schema inference samples', () => {
  const sample = (q: { since?: string; until?: string; sample?: number }, topic = orders) =>
    plan({ kind: 'sample', topic, ...q }, POLICY, NOW);

  it('defaults to the last day and the default sample, unordered', () => {
    const p = sample({});
    expect([p.position.lo, p.position.hi, p.tree.limit, p.tree.order, p.tree.totalOrder]).toEqual([
      NOW - DAY,
      NOW,
      1000,
      [],
      false,
    ]);
  });

  it.each([
    [{ sample: 5001 }, 'TG_TOO_EXPENSIVE', 'sample 5001 is above the maximum 5000'],
    [{ since: '-8d' }, 'TG_TOO_EXPENSIVE', 'the window is wider than 168h: narrow since/until'],
    [{ since: '-1h', until: '-2h' }, 'TG_BAD_TIME', 'until must be after since'],
  ])('%j is refused', (q, code, message) => {
    const [c, , m] = refusal(() => sample(q));
    expect([c, m]).toEqual([code, message]);
  });

  it('a table without payloads is refused', () => {
    expect(refusal(() => sample({}, items))[0]).toBe('TG_BAD_REQUEST');
  });
});

describe('plan: cursor batches', () => {
  const from = { ts: trinoTimestampText(NOW - 30 * DAY), skip: 2 };
  const batch = (o: { where?: PredicateNode; limit?: number; pendingLimit?: number; ts?: string | null }) =>
    plan(
      {
        kind: 'batch',
        topic: orders,
        read: { where: o.where ?? null },
        from: { ...from, ts: o.ts === undefined ? from.ts : o.ts },
        untilMs: NOW,
        limit: o.limit,
        pendingLimit: o.pendingLimit,
      },
      POLICY,
    );

  it('limits like every other read: the batch default, and more than the maximum is a 422 (not a silent cap)', () => {
    expect(batch({}).tree.limit).toBe(1000);
    expect(batch({ limit: 10 }).tree.limit).toBe(10);
    expect(refusal(() => batch({ limit: 1001 })).slice(0, 2)).toEqual(['TG_TOO_EXPENSIVE', 422]);
  });

  it('an uncommitted batch is handed out again with the limit it was issued with', () => {
    expect(batch({ limit: 5, pendingLimit: 2000 }).tree.limit).toBe(2000);
  });

  it('starts at the position (anchor and skip) and ends at until', () => {
    const p = batch({});
    expect([p.position.a, p.tree.offset, batchUntil(p)]).toEqual([from.ts, 2, trinoTimestampText(NOW)]);
  });

  it('residual-only filters: each batch reads at most the guardrail window from its position', () => {
    expect(batch({ where: RESIDUAL }).position.hi).toBe(NOW - 30 * DAY + 7 * DAY);
    expect(batch({ where: PUSHED }).position.hi).toBe(NOW);
    expect(batch({ where: RESIDUAL, ts: trinoTimestampText(NOW - HOUR) }).position.hi).toBe(NOW);
  });

  it('residual-only filters from the very beginning are refused, naming the start', () => {
    const [code, , message] = refusal(() => batch({ where: RESIDUAL, ts: null }));
    expect(code).toBe('TG_TIME_BOUND_REQUIRED');
    expect(message).toMatch(/start it at an instant/);
  });

  it('a pushed filter that bounds nothing does not lift the bound on each batch', () => {
    const epoch = all(brokerTime('gte', '1970-01-01T00:00:00Z'), RESIDUAL);
    expect(refusal(() => batch({ where: epoch, ts: null }))[0]).toBe('TG_TIME_BOUND_REQUIRED');
    expect(batch({ where: all(PUSHED, RESIDUAL) }).position.hi).toBe(NOW - 30 * DAY + 7 * DAY);
    expect(batch({ where: all(KEY_EQ, RESIDUAL) }).position.hi).toBe(NOW);
  });
});

describe('readPolicy: one value from the settings', () => {
  it('per-topic settings override the gateway settings', () => {
    const config = {
      ...loadConfig({ TOPICGATE_MAX_LIMIT: '500', TOPICGATE_DEFAULT_LIMIT: '50' }),
      topics: { orders: { maxLimit: 20, allowFullScan: true } },
    };
    const rows = { filter: null, principal: 'anonymous' };
    const p = readPolicy(config, 'orders', rows);
    expect([p.maxLimit, p.defaultLimit, p.batchDefaultLimit, p.guardrail.allowFullScan]).toEqual([20, 20, 20, true]);
    const q = readPolicy(config, 'clicks', rows);
    expect([q.maxLimit, q.defaultLimit, q.batchDefaultLimit, q.guardrail.allowFullScan]).toEqual([500, 50, 500, false]);
  });
});

describe('plan: how each read goes to Trino', () => {
  const from = { ts: trinoTimestampText(NOW - DAY), skip: 0 };
  const requests = {
    read: { kind: 'read', topic: orders, read: { where: PUSHED }, token: null },
    explain: { kind: 'read', topic: orders, read: { where: PUSHED }, token: null, explain: true },
    infer: { kind: 'sample', topic: orders },
    cursors: { kind: 'batch', topic: orders, read: { where: null }, from, untilMs: NOW },
  } as const;
  const alice = { id: 'key:alice', name: 'alice', via: 'api-key' as const };
  const TAGGED: ReadPolicy = {
    ...POLICY,
    trino: {
      impersonate: false,
      reservedUsers: new Set(),
      session: { 'vast.num_of_splits': '64' },
      clientTags: ['orders-team', 'read'],
    },
  };

  it.each(Object.keys(requests) as (keyof typeof requests)[])(
    '%s: the action and the topic tags (once each), the topic session, the gateway user',
    (action) => {
      const p = plan({ ...requests[action], caller: alice }, TAGGED, NOW);
      const tags = action === 'read' ? ['read', 'orders-team'] : [action, 'orders-team', 'read'];
      expect(p.run).toEqual({ clientTags: tags, session: { 'vast.num_of_splits': '64' } });
    },
  );

  it("with impersonation every kind of read runs as the caller's principal", () => {
    const impersonate = { ...POLICY, trino: { ...POLICY.trino, impersonate: true } };
    for (const r of Object.values(requests)) {
      expect(plan({ ...r, caller: alice }, impersonate, NOW).run.user).toBe('alice');
      // No principal (an open gateway): the gateway's own user; Trino's rules for it still apply.
      expect(plan(r, impersonate, NOW).run.user).toBeUndefined();
    }
  });

  it.each(['jürgen', ' alice', 'alice ', 'a\nb', ''])(
    'a principal that cannot travel as X-Trino-User (%j) is refused with 403, never altered',
    (name) => {
      const impersonate = { ...POLICY, trino: { ...POLICY.trino, impersonate: true } };
      const caller = { ...alice, id: `key:${name}`, name };
      const [code, status] = refusal(() => plan({ ...requests.read, caller }, impersonate, NOW));
      expect([code, status]).toEqual(['TG_FORBIDDEN', 403]);
      // Without impersonation the name is not sent: nothing to refuse.
      expect(plan({ ...requests.read, caller }, POLICY, NOW).run.user).toBeUndefined();
    },
  );

  it('readPolicy takes the session and tags of the topic from the config file', () => {
    const config = {
      ...loadConfig({ TOPICGATE_TRINO_IMPERSONATE: 'true' }),
      topics: { orders: { session: { query_priority: 2, 'vast.enable_sorted_projections': true }, tags: ['t1'] } },
    };
    const reservedUsers = new Set(['topicgate', 'anonymous']);
    expect(readPolicy(config, 'orders', { filter: null, principal: 'anonymous' }).trino).toEqual({
      impersonate: true,
      reservedUsers,
      session: { query_priority: '2', 'vast.enable_sorted_projections': 'true' },
      clientTags: ['t1'],
    });
    expect(readPolicy(config, 'clicks', { filter: null, principal: 'anonymous' }).trino).toEqual({
      impersonate: true,
      reservedUsers,
      session: {},
      clientTags: [],
    });
  });
});

describe('plan: the Trino user under impersonation', () => {
  const reserved = new Set(['topicgate', 'anonymous', 'loader-one']);
  const policy = { ...POLICY, trino: { ...POLICY.trino, impersonate: true, reservedUsers: reserved } };
  const as = (caller: { id: string; name: string; via: 'anonymous' | 'api-key' | 'jwt' }) =>
    plan({ kind: 'read', topic: orders, read: { where: null }, token: null, caller }, policy, NOW).run.user;

  it("an API key's principal as configured; a token's claim as it is when it names no one else's user", () => {
    expect(as({ id: 'key:loader-one', name: 'loader-one', via: 'api-key' })).toBe('loader-one');
    expect(as({ id: 'jwt:https://idp/:alice', name: 'alice', via: 'jwt' })).toBe('alice');
  });

  it.each(['loader-one', 'topicgate', 'anonymous'])('a token whose claim is %s is refused, never run as it', (name) => {
    const [code, status, message] = refusal(() => as({ id: `jwt:https://idp/:${name}`, name, via: 'jwt' }));
    expect([code, status]).toEqual(['TG_FORBIDDEN', 403]);
    expect(message).toContain('is the Trino user of another principal');
  });

  it('the reserved users are every API key, anonymous and the gateway user, only when impersonating', () => {
    const config = {
      ...loadConfig({ TOPICGATE_TRINO_IMPERSONATE: 'true', TOPICGATE_TRINO_USER: 'gw' }),
      auth: { apiKeys: [{ principal: 'k1', sha256: '0'.repeat(64) }] },
    };
    const rows = { filter: null, principal: 'anonymous' };
    expect([...readPolicy(config, 'orders', rows).trino.reservedUsers].sort()).toEqual(['anonymous', 'gw', 'k1']);
    expect(readPolicy({ ...config, trinoImpersonate: false }, 'orders', rows).trino.reservedUsers.size).toBe(0);
  });
});
