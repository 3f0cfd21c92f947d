/**
 * Authorization: roles -> topic glob patterns -> actions; a topic with no action granted is
 * invisible; no auth block: everyone may do everything; auth without access rules: all but admin.
 */
import { describe, expect, it } from 'vitest';
import { Grants, globRegExp } from '../../src/access/grants.js';
import type { Action } from '../../src/config/access-schema.js';
import { ANONYMOUS, type Principal } from '../../src/access/principal.js';

const who = (...roles: string[]): Principal => ({ id: 'key:p', name: 'p', roles, claims: {}, via: 'api-key' });

describe('globRegExp', () => {
  it.each<[string, string, boolean]>([
    ['orders*', 'orders', true],
    ['orders*', 'orders_expanded', true],
    ['orders*', 'xorders', false],
    ['clicks', 'clicks', true],
    ['clicks', 'clicks2', false],
    ['c?icks', 'clicks', true],
    ['c?icks', 'cicks', false],
    ['*', 'anything|at:all', true],
    ['a.b', 'axb', false],
    ['a.b', 'a.b', true],
    ['s3_(x)', 's3_(x)', true],
    ['demo|kafka_topics:*', 'demo|kafka_topics:orders', true],
    ['[ab]', 'a', false],
    ['*', 'line\nbreak', true],
  ])('%j matches %j: %s', (pattern, topic, matches) => {
    expect(globRegExp(pattern).test(topic)).toBe(matches);
  });
});

describe('Grants from access rules', () => {
  const grants = new Grants(
    [
      { roles: ['analyst'], topics: ['orders*', 'clicks'], actions: ['read', 'explain', 'infer'] },
      { roles: ['loader'], topics: ['orders'], actions: ['cursors'] },
      { roles: ['ops'], topics: ['*'], actions: ['admin'] },
      { roles: ['peek'], topics: ['s3_events'], actions: ['explain'] },
    ],
    true,
  );

  const CASES: [string[], string, Action, boolean][] = [
    [['analyst'], 'orders', 'read', true],
    [['analyst'], 'orders_expanded', 'explain', true],
    [['analyst'], 'clicks', 'infer', true],
    [['analyst'], 'clicks', 'cursors', false],
    [['analyst'], 'clicks', 'admin', false],
    [['analyst'], 's3_events', 'read', false],
    [['loader'], 'orders', 'cursors', true],
    [['loader'], 'orders', 'read', false],
    [['loader'], 'orders_expanded', 'cursors', false],
    [['analyst', 'loader'], 'orders', 'cursors', true],
    [['analyst', 'loader'], 'orders', 'read', true],
    [['ops'], 'anything', 'read', true],
    [['ops'], 'anything', 'admin', true],
    [['ops'], 'anything', 'cursors', true],
    [['peek'], 's3_events', 'explain', true],
    [['peek'], 's3_events', 'read', false],
    [[], 'orders', 'read', false],
    [['ANALYST'], 'orders', 'read', false],
  ];
  it.each(CASES)('roles %j on %s: %s -> %s', (roles, topic, action, allowed) => {
    expect(grants.can(who(...roles), topic, action)).toBe(allowed);
  });

  it('visible topics: those on which the caller holds any action, in their order', () => {
    const topics = ['clicks', 'orders', 'orders_expanded', 's3_events'];
    expect(grants.visibleTopics(who('analyst'), topics)).toEqual(['clicks', 'orders', 'orders_expanded']);
    expect(grants.visibleTopics(who('loader'), topics)).toEqual(['orders']);
    expect(grants.visibleTopics(who('peek'), topics)).toEqual(['s3_events']);
    expect(grants.visibleTopics(who('ops'), topics)).toEqual(topics);
    expect(grants.visibleTopics(who(), topics)).toEqual([]);
    expect(grants.visibleTopics(ANONYMOUS, topics)).toEqual([]);
    expect(grants.visibleTopics(who('analyst'), [{ id: 'orders' }, { id: 's3_events' }])).toEqual([{ id: 'orders' }]);
  });

  it('an empty rule list grants nothing', () => {
    const none = new Grants([], true);
    expect(none.can(who('analyst'), 'orders', 'read')).toBe(false);
    expect(none.sees(who('analyst'), 'orders')).toBe(false);
  });
});

describe('Grants without rules', () => {
  it('no auth block: the anonymous caller may do everything', () => {
    const open = new Grants(undefined, false);
    for (const a of ['read', 'explain', 'infer', 'cursors', 'admin'] as const) {
      expect(open.can(ANONYMOUS, 'orders', a)).toBe(true);
    }
    expect(open.sees(ANONYMOUS, 'x')).toBe(true);
  });

  it('auth without access rules: an authenticated caller may do all but admin; anonymous nothing', () => {
    const g = new Grants(undefined, true);
    expect(g.can(who(), 'orders', 'read')).toBe(true);
    expect(g.can(who(), 'orders', 'cursors')).toBe(true);
    expect(g.can(who('admin'), 'orders', 'admin')).toBe(false);
    expect(g.can(ANONYMOUS, 'orders', 'read')).toBe(false);
    expect(g.sees(ANONYMOUS, 'orders')).toBe(false);
  });
});
