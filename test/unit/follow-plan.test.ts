/**
 * A follow's plan and its writing (query/follow/, read/follow/follow-frames.ts, follow-body.ts): what cannot
 * follow is refused naming the parameter, event ids are signed and bound to their query, each poll reads from the
 * position to now minus settle, rows are framed as Server-Sent Events or NDJSON, and an idle follow keeps its
 * connection alive.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { FollowIds } from '../../src/query/follow/follow-ids.js';
import { FollowPlanner, type FollowRequest } from '../../src/query/follow/follow-plan.js';
import type { ReadRequest } from '../../src/query/tree/read-request.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { followBody } from '../../src/read/follow/follow-body.js';
import { followFraming } from '../../src/read/follow/follow-frames.js';
import type { FollowItem } from '../../src/read/follow/follow-loop.js';
import { Followers } from '../../src/read/follow/followers.js';
import { json, table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';

const COLUMNS = [table('key', 'varbinary'), table('value', 'varbinary'), table('timestamp_broker', 'timestamp(3)')];
const topic = topicOf(COLUMNS, 't', { expanded: [json('status', 'varchar')] });
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const ids = new FollowIds('a test secret of some length');

function planner(read: Partial<ReadRequest>, extra: Partial<FollowRequest> = {}, resumed: string | null = null) {
  const r: FollowRequest = { topic, read: { where: null, ...read }, policy: testPolicy(), settleMs: 30_000, ...extra };
  return new FollowPlanner(r, resumed === null ? null : ids.open(resumed, 'Last-Event-ID'), NOW);
}

function refusal(f: () => unknown): { code: string; details: unknown } {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, details: err.details };
    throw err;
  }
  throw new Error('not refused');
}

describe('what cannot follow', () => {
  it.each([
    [{ limit: 10 }, {}, 'limit'],
    [{ limit: 'all' as const, until: '2026-11-30T07:00:00Z' }, {}, 'limit'],
    [{ parallel: 2 }, {}, 'parallel'],
    [{ order: [{ field: 'timestamp_broker', dir: 'desc' as const }] }, {}, 'order'],
    [{ order: [{ field: 'key' }] }, {}, 'order'],
    [{ unordered: true }, {}, 'order'],
    [{ dedupe: { keep: 'latest' as const } }, {}, 'select'],
    [{}, { cursor: 'p1.x.y.z' }, 'cursor'],
    [{}, { explain: true }, 'explain'],
    [{ select: ['timestamp_broker:key'] }, {}, 'select'],
  ])('%j %j is a 400 naming %s', (read, extra, parameter) => {
    expect(refusal(() => planner(read, extra))).toEqual({
      code: 'TG_BAD_REQUEST',
      details: { parameter, follow: true },
    });
  });

  it('a table without broker time', () => {
    const plain = topicOf([table('id', 'bigint')], 'p', { kind: 'table' });
    expect(refusal(() => planner({}, { topic: plain })).code).toBe('TG_BAD_REQUEST');
  });

  it('filters all evaluated after the scan need since, as a read does', () => {
    const where = { kind: 'compare', op: 'eq', column: topic.columns.get('status')!, value: lit('paid') } as const;
    expect(refusal(() => planner({ where })).code).toBe('TG_TIME_BOUND_REQUIRED');
    expect(() => planner({ where, since: '-1h' })).not.toThrow();
  });

  it('an until before since', () => {
    expect(refusal(() => planner({ since: '-1h', until: '-2h' })).code).toBe('TG_BAD_TIME');
  });
});

function lit(text: string) {
  return { kind: 'literal', type: 'varchar', value: { t: 'varchar', v: text } } as never;
}

describe('event ids', () => {
  it('resume the query that issued them, at their position', () => {
    const p = planner({ since: '2026-11-30T07:00:00Z' });
    const id = ids.seal(p.hash, { ts: '2026-11-30 07:10:00.000', skip: 3 });
    expect(planner({ since: '2026-11-30T07:00:00Z' }, {}, id).start).toEqual({
      ts: '2026-11-30 07:10:00.000',
      skip: 3,
    });
  });

  it('of another query, altered, or not ids are a 400 TG_BAD_CURSOR naming the header', () => {
    const id = ids.seal(planner({}).hash, { ts: '2026-11-30 07:10:00.000', skip: 3 });
    const other = refusal(() => planner({ select: ['key'] }, {}, id));
    expect(other).toEqual({ code: 'TG_BAD_CURSOR', details: { header: 'Last-Event-ID' } });
    const altered = id.slice(0, -1) + (id.endsWith('A') ? 'B' : 'A');
    expect(refusal(() => planner({}, {}, altered)).code).toBe('TG_BAD_CURSOR');
    expect(refusal(() => ids.open('p1.abc.def.ghi', 'after'))).toEqual({
      code: 'TG_BAD_CURSOR',
      details: { parameter: 'after' },
    });
  });

  it('a relative since is pinned in the start', () => {
    expect(planner({ since: '-1h' }).start).toEqual({ ts: trinoTimestampText(NOW - 3_600_000), skip: 0 });
  });
});

describe('a poll', () => {
  it('reads from the position to now minus settle, its rows at the position skipped', () => {
    const p = planner({ since: '2026-11-30T07:00:00Z' });
    const poll = p.poll({ ts: '2026-11-30 07:59:00.000', skip: 2 }, NOW);
    if (typeof poll !== 'object') throw new Error(`no poll: ${poll}`);
    expect(poll.hi).toBe(NOW - 30_000);
    const sql = poll.plan.sql();
    expect(sql).toContain(`"timestamp_broker" >= TIMESTAMP '2026-11-30 07:59:00.000'`);
    expect(sql).toContain(`"timestamp_broker" < TIMESTAMP '2026-11-30 07:59:30.000'`);
    expect(sql).toMatch(/OFFSET 2 LIMIT 1001$/);
  });

  it('waits while nothing after the position has settled, and is done at until', () => {
    const p = planner({ since: '2026-11-30T07:00:00Z', until: '2026-11-30T07:30:00Z' });
    expect(p.poll({ ts: '2026-11-30 07:30:00.000', skip: 0 }, NOW)).toBe('done');
    const live = planner({ since: '-1m' });
    expect(live.poll({ ts: trinoTimestampText(NOW - 29_000), skip: 0 }, NOW)).toBe('wait');
  });
});

const rowsItem = (rows: unknown[][]): Extract<FollowItem, { kind: 'rows' }> => ({
  kind: 'rows',
  columns: [
    { name: 'key', type: 'varbinary' },
    { name: 'value', type: 'varbinary' },
  ],
  rows,
  points: rows.map((_, i) => ({ ts: '2026-11-30 07:00:00.000', skip: i + 1 })),
});

describe('framing', () => {
  const multiLine = Buffer.from('{\n  "a": [1,\n 2]\n}').toString('base64');
  const item = rowsItem([
    [Buffer.from('k1').toString('base64'), multiLine],
    [null, Buffer.from([0xff, 0x00]).toString('base64')],
  ]);

  it('as Server-Sent Events: one event per row, its id the position after it, data on one line', () => {
    const f = followFraming('sse', (p) => `id-${p.skip}`, 1000);
    expect(f.start()).toBe('retry: 1000\n\n');
    expect(f.rows(item).toString()).toBe(
      'id: id-1\ndata: {"key":"k1","value":{"a":[1,2]}}\n\n' + 'id: id-2\ndata: {"key":null,"value":"\\\\xff00"}\n\n',
    );
    expect(f.mark({ ts: null, skip: 0 })).toBe('id: id-0\n\n');
    expect(f.keepAlive()).toBe(': keep-alive\n\n');
    expect(f.cut({ code: 'TG_TRINO_FAILED', message: 'm', status: 502 })).toBe(
      'event: error\ndata: {"error":{"code":"TG_TRINO_FAILED","message":"m","status":502}}\n\n',
    );
  });

  it('as NDJSON: rows, empty lines as keep-alives, no ids', () => {
    const f = followFraming('ndjson', () => 'never', 1000);
    expect(f.rows(item).toString()).toBe('{"key":"k1","value":{"a":[1,2]}}\n{"key":null,"value":"\\\\xff00"}\n');
    expect(f.mark({ ts: null, skip: 0 })).toBeUndefined();
    expect(f.keepAlive()).toBe('\n');
  });
});

describe('a follow body', () => {
  it('keeps an idle connection alive, and writes a position it reached when it does', async () => {
    const chunks: string[] = [];
    const keepAlives = () => chunks.join('').match(/: keep-alive/g)?.length ?? 0;
    async function* idle(): AsyncGenerator<FollowItem, void, undefined> {
      yield { kind: 'horizon', point: { ts: null, skip: 0 } };
      yield rowsItem([['YQ==', null]]);
      yield { kind: 'horizon', point: { ts: '2026-11-30 07:00:01.000', skip: 0 } };
      // Idle until two keep-alives are out, however late a loaded machine fires the timers (none: the test times out).
      while (keepAlives() < 2) await new Promise((r) => setTimeout(r, 5));
    }
    const framing = followFraming('sse', (p) => `@${p.ts}+${p.skip}`, 1000);
    const onError = () => ({ code: 'TG_INTERNAL', message: 'x' });
    for await (const c of followBody(idle(), framing, { keepAliveMs: 20, onError })) chunks.push(c.toString());
    const text = chunks.join('');
    expect(
      text.startsWith(
        'retry: 1000\n\nid: @null+0\n\n' +
          'id: @2026-11-30 07:00:00.000+1\ndata: {"key":"a","value":null}\n\n' +
          ': keep-alive\n\nid: @2026-11-30 07:00:01.000+0\n\n',
      ),
    ).toBe(true);
    expect(keepAlives()).toBeGreaterThanOrEqual(2);
  });

  it('ends a failed follow with the failure, and rethrows it', async () => {
    async function* failing(): AsyncGenerator<FollowItem, void, undefined> {
      yield rowsItem([['YQ==', null]]);
      throw new Error('Trino went away');
    }
    const framing = followFraming('ndjson', () => '', 1000);
    const chunks: string[] = [];
    const onError = () => ({ code: 'TG_TRINO_UNAVAILABLE', message: 'gone', status: 503 });
    await expect(async () => {
      for await (const c of followBody(failing(), framing, { keepAliveMs: 1000, onError })) chunks.push(c.toString());
    }).rejects.toThrow('Trino went away');
    expect(chunks.join('')).toBe(
      '{"key":"a","value":null}\n{"error":{"code":"TG_TRINO_UNAVAILABLE","message":"gone","status":503}}\n',
    );
  });
});

describe('followers', () => {
  it('are counted per caller, past the limit a 429 naming it, and give their place back once', () => {
    const f = new Followers(2);
    const leave = f.enter('a', () => {});
    f.enter('a', () => {});
    const err = refusal(() => f.enter('a', () => {}));
    expect(err).toEqual({ code: 'TG_TOO_MANY_REQUESTS', details: { limit: 'maxFollowers', max: 2 } });
    f.enter('b', () => {});
    leave();
    leave();
    expect(f.count('a')).toBe(1);
    let ended = 0;
    f.enter('a', () => ended++);
    f.endAll();
    expect(ended).toBe(1);
  });
});
