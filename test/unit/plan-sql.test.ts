/**
 * The finished plan answers for its SQL (plan-sql.ts): exec asks it for the page's, a slice's or a bulk slice's
 * query and never shapes a tree itself; the plan is frozen.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/query/planner.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';

const topic = topicOf([table('key', 'varchar'), table('timestamp_broker', 'timestamp(3)')]);
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const window = { since: '2026-11-30T00:00:00Z', until: '2026-11-30T04:00:00Z' };
const page = (read: object) =>
  plan({ kind: 'read', topic, read: { where: null, ...window, ...read }, token: null }, testPolicy(), NOW);

describe('the plan gives its SQL', () => {
  it('is frozen', () => {
    const p = page({ limit: 9 });
    expect(Object.isFrozen(p)).toBe(true);
    expect(() => {
      (p as { slices: unknown }).slices = null;
    }).toThrow(TypeError);
  });

  it('a slice: the page query bounded by the slice, asking for the rows still missing', () => {
    const p = page({ limit: 9 });
    const from = Date.parse('2026-11-30T01:00:00Z');
    expect(p.sliceSql({ fromMs: from, toMs: from + 1000, limit: 4, first: false })).toBe(
      'SELECT "key", "timestamp_broker" FROM "vast"."s"."t" WHERE "timestamp_broker" >= TIMESTAMP \'2026-11-30 01:00:00.000\' AND ' +
        '"timestamp_broker" < TIMESTAMP \'2026-11-30 01:00:01.000\' AND "timestamp_broker" >= TIMESTAMP \'2026-11-30 00:00:00.000\' AND ' +
        '"timestamp_broker" < TIMESTAMP \'2026-11-30 04:00:00.000\' ORDER BY "timestamp_broker" ASC, "key" LIMIT 5',
    );
  });

  it('a bulk slice: every row of its bounds; a plan that is not bulk has none', () => {
    const bulk = page({ limit: 'all', parallel: 2 });
    expect(bulk.bulkSliceSql(1)).toContain(`"timestamp_broker" >= TIMESTAMP '2026-11-30 02:00:00.000'`);
    expect(bulk.bulkSliceSql(1)).not.toContain('LIMIT');
    expect(() => page({ limit: 9 }).bulkSliceSql(0)).toThrow(/not a bulk read/);
  });
});
