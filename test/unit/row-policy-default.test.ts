/**
 * `rowPolicies.default` in the config file: `deny` or `allow`, read beside the topics' policies; left out it is
 * `deny` (a caller holding none of a topic's policy roles reads none of its rows), and start-up says so when
 * policies exist without it, since it was `allow` before.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/server/load-config.js';
import { startupWarnings } from '../../src/access/startup-checks.js';
import { RowPolicies } from '../../src/access/row-policy.js';
import { ANONYMOUS } from '../../src/access/principal.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-policy-default-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AUTH = `auth:\n  apiKeys: [{ principal: p, sha256: "${'a'.repeat(64)}", roles: [a] }]\n`;
function load(name: string, rowPolicies: string) {
  const path = join(dir, name);
  writeFileSync(path, `${AUTH}rowPolicies:\n${rowPolicies}`);
  return loadConfig({ TOPICGATE_CONFIG: path });
}
function problems(name: string, rowPolicies: string): string[] {
  try {
    load(name, rowPolicies);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('loaded');
}
const ORDERS = '  orders: [{ roles: [a], filter: "key=eq.x" }]\n';
const KEY = { kind: 'column', name: 'key', type: 'varchar', source: { kind: 'table' } } as const;

describe('rowPolicies.default', () => {
  it('deny and allow are read apart from the topics', () => {
    for (const d of ['deny', 'allow'] as const) {
      const c = load(`${d}.yaml`, `  default: ${d}\n${ORDERS}`);
      expect(c.rowPoliciesDefault).toBe(d);
      expect(c.rowPolicies).toEqual({ orders: [{ roles: ['a'], filter: 'key=eq.x' }] });
      expect(startupWarnings(c)).toEqual([]);
    }
  });

  it('left out: deny, and one start-up line that says so and how to keep allow', () => {
    const c = load('none.yaml', ORDERS);
    expect(c.rowPoliciesDefault).toBeUndefined();
    expect(startupWarnings(c)).toEqual([
      'rowPolicies.default is not set, so it is deny: a caller holding none of a topic policy roles reads none of its rows (the default was allow before; set rowPolicies.default: allow to let such callers read every row)',
    ]);
    expect(startupWarnings({ rowPolicies: {}, rowPoliciesDefault: undefined })).toEqual([]);
  });

  it('left out: a caller holding none of the topic policy roles reads nothing; allow reads every row', () => {
    const orders: TopicModel = {
      id: 'orders',
      source: { kind: 'source', catalog: 'c', schema: 's', table: 'orders', topicKind: 'topic', columns: [KEY] },
      columns: new Map([['key', KEY]]),
      time: null,
    };
    const other = { ...ANONYMOUS, id: 'key:other', roles: ['b'] };
    const c = load('none-reads.yaml', ORDERS);
    const left = new RowPolicies(c.rowPolicies, { default: c.rowPoliciesDefault });
    expect(left.filterFor(orders, other)).toEqual({
      kind: 'and',
      items: [
        { kind: 'is', column: KEY, what: 'null' },
        { kind: 'not', inner: { kind: 'is', column: KEY, what: 'null' } },
      ],
    });
    expect(new RowPolicies(c.rowPolicies, { default: 'allow' }).filterFor(orders, other)).toBeNull();
  });

  it('anything else is refused, naming it', () => {
    expect(problems('bad.yaml', `  default: maybe\n${ORDERS}`).join('\n')).toMatch(
      /rowPolicies\.default: allow or deny/,
    );
    expect(problems('text.yaml', '  orders: deny\n').join('\n')).toMatch(/\/rowPolicies\/orders Expected array$/);
  });

  it('a topic named default keeps its list of policies under the same key', () => {
    const c = load('topic.yaml', '  default: [{ roles: [a], filter: "key=eq.x" }]\n');
    expect(c.rowPolicies).toEqual({ default: [{ roles: ['a'], filter: 'key=eq.x' }] });
    expect(c.rowPoliciesDefault).toBeUndefined();
  });
});
