/**
 * A load's target (loads/load-target.ts) and its config (config/loads-settings.ts): three plain names, inside a
 * schema `loads.targets` allows, never in the topics' catalog whatever the patterns say; `*` matches within one
 * part only. Keys and markers of loads per owner (loads/load-keys.ts).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOAD_TARGETS, LoadsSchema, loadsSettingsOf } from '../../src/config/loads-settings.js';
import { schemaProblems } from '../../src/config/schema-problems.js';
import { loadKey, loadMarker, loadName, ownerOf } from '../../src/loads/load-keys.js';
import { legacyClaims } from '../../src/loads/load-rows.js';
import { parseTarget, targetPatternMatches } from '../../src/loads/load-target.js';
import { refusal } from '../cases/api-error.js';

const config = (targets: readonly string[] = DEFAULT_LOAD_TARGETS) => ({ catalog: 'vast', loads: { targets } });

describe('a target', () => {
  it('is three plain lower-case names', () => {
    expect(parseTarget('lake.landing.orders_2', config())).toEqual({
      kind: 'target',
      catalog: 'lake',
      schema: 'landing',
      table: 'orders_2',
    });
    for (const bad of ['lake.landing', 'lake.landing.orders.x', 'Lake.l.o', 'lake."l".o', 'lake.l.o;', 'lake..o']) {
      expect(refusal(() => parseTarget(bad, config()))[0], bad).toBe('TG_BAD_TARGET');
    }
  });

  it('is by default only in the lake catalog: the topics catalog, system catalogs and others are refused', () => {
    for (const bad of ['vast.warehouse.t', 'vast.demo.t', 'system.runtime.nodes', 'hive.default.t', 'lakehouse.s.t']) {
      expect(
        refusal(() => parseTarget(bad, config())),
        bad,
      ).toEqual(['TG_BAD_TARGET', 400, expect.stringMatching(/^target .* loads may write in lake\.\*$/)]);
    }
    expect(refusal(() => parseTarget('vast.warehouse.t', config()))[2]).toBe(
      'target vast.warehouse.t is in vast, the catalog of the served topics; loads may write in lake.*',
    );
    expect(refusal(() => parseTarget('hive.default.t', config()))[2]).toBe(
      'target hive.default.t is outside the schemas loads may write in (loads.targets); loads may write in lake.*',
    );
  });

  it('never in the topics catalog, whatever the patterns say', () => {
    for (const targets of [['vast.*'], ['*.*'], ['v*.warehouse']]) {
      expect(refusal(() => parseTarget('vast.warehouse.t', config(targets)))[0], targets[0]).toBe('TG_BAD_TARGET');
    }
    expect(parseTarget('hive.warehouse.t', config(['*.*'])).catalog).toBe('hive');
  });

  it('names the patterns it allows, or none', () => {
    const err = refusal(() => parseTarget('lake.x.t', config(['lake.landing', 'hive.team_*'])));
    expect(err[2]).toMatch(/loads may write in lake\.landing, hive\.team_\*$/);
    expect(refusal(() => parseTarget('lake.x.t', config([])))[2]).toMatch(/loads may write in no schema$/);
  });
});

describe('a target pattern', () => {
  it.each([
    ['lake.*', 'lake', 'landing', true],
    ['lake.*', 'lake', '', true],
    ['lake.*', 'lakehouse', 'landing', false],
    ['lake.land*', 'lake', 'landing', true],
    ['lake.land*', 'lake', 'xlanding', false],
    ['lake.*_raw', 'lake', 'team_raw', true],
    ['lake.*_raw', 'lake', 'team_raw2', false],
    ['*.landing', 'hive', 'landing', true],
    ['lake.landing', 'lake', 'landing', true],
    ['lake.landing', 'lake', 'landings', false],
    ['lake', 'lake', 'landing', false],
    ['lake.a.b', 'lake', 'a', false],
  ])('%s matches %s.%s: %s', (pattern, catalog, schema, matches) => {
    expect(targetPatternMatches(pattern, catalog, schema)).toBe(matches);
  });

  it('is checked by the config schema: catalog.schema of names and *', () => {
    expect(schemaProblems(LoadsSchema, { targets: ['lake.*', '*.landing', 'lake.team_1'] })).toEqual([]);
    for (const bad of ['lake', 'lake.*.x', 'Lake.x', 'lake.(a|b)', 'lake.x y', 'lake.?', '']) {
      expect(schemaProblems(LoadsSchema, { targets: [bad] }).length, bad).toBeGreaterThan(0);
    }
    expect(schemaProblems(LoadsSchema, { other: 1 }).length).toBeGreaterThan(0);
    expect(loadsSettingsOf(undefined)).toEqual({ targets: ['lake.*'] });
    expect(loadsSettingsOf({ targets: [] })).toEqual({ targets: [] });
  });
});

describe('loads per owner', () => {
  it('are keyed by name and owner; the name is shown, the owner any text', () => {
    expect(loadKey('orders', 'jwt:https://i/:a/b')).toBe('orders/jwt%3Ahttps%3A%2F%2Fi%2F%3Aa%2Fb');
    expect(loadName(loadKey('orders', 'key:a'))).toBe('orders');
    expect(loadName('orders')).toBe('orders');
  });

  it('an old bare key keeps its owner: an id as it is, a bare API key name as that key', () => {
    expect(ownerOf({ name: 'l', owner: 'key:alice' })).toBe('key:alice');
    expect(ownerOf({ name: 'l', owner: 'anonymous' })).toBe('anonymous');
    expect(ownerOf({ name: 'l', owner: 'alice' })).toBe('key:alice');
    expect(ownerOf({ name: 'l/alice', owner: 'alice' })).toBe('alice');
  });

  it("two principals' loads of one name have different markers, none the start of another", () => {
    const a = loadMarker(loadKey('orders', 'key:a'));
    const b = loadMarker(loadKey('orders', 'key:b'));
    expect(a).toMatch(/^\/\* topicgate load orders [0-9a-f]{16} \*\/$/);
    expect(a).not.toBe(b);
    expect(loadMarker('orders')).toBe('/* topicgate load orders */');
    expect(a.startsWith(loadMarker('orders'))).toBe(false);
  });

  it('loads stored before claims: each target goes to the load that named it first', () => {
    const def = (target: string) => JSON.stringify({ topic: 't', target });
    const claims = legacyClaims([
      { name: 'late', owner: 'bob', definition: def('lake.s.t'), created_at: '2026-11-02T00:00:00.000Z' },
      { name: 'first', owner: 'alice', definition: def('lake.s.t'), created_at: '2026-11-01T00:00:00.000Z' },
      { name: 'other', owner: 'key:carol', definition: def('lake.s.u'), created_at: '2026-11-03T00:00:00.000Z' },
    ]);
    expect(claims).toEqual([
      { target: 'lake.s.t', load_key: 'first', owner: 'key:alice', created: 1, claimed_at: '2026-11-01T00:00:00.000Z' },
      { target: 'lake.s.u', load_key: 'other', owner: 'key:carol', created: 1, claimed_at: '2026-11-03T00:00:00.000Z' },
    ]);
  });
});
