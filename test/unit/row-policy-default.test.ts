/**
 * `rowPolicies.default` (issue 31 finding 4) in the config file: `deny` or `allow`, read beside the topics' policies;
 * left out it is `allow` (existing configs keep working) and start-up warns when policies exist without it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/server/load-config.js';
import { startupWarnings } from '../../src/access/startup-checks.js';

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

describe('rowPolicies.default', () => {
  it('deny and allow are read apart from the topics', () => {
    for (const d of ['deny', 'allow'] as const) {
      const c = load(`${d}.yaml`, `  default: ${d}\n${ORDERS}`);
      expect(c.rowPoliciesDefault).toBe(d);
      expect(c.rowPolicies).toEqual({ orders: [{ roles: ['a'], filter: 'key=eq.x' }] });
      expect(startupWarnings(c)).toEqual([]);
    }
  });

  it('left out: allow, and a start-up warning that recommends deny', () => {
    const c = load('none.yaml', ORDERS);
    expect(c.rowPoliciesDefault).toBeUndefined();
    expect(startupWarnings(c)).toEqual([
      'rowPolicies.default is not set: a caller holding none of a topic policy roles reads it unrestricted (allow); set rowPolicies.default: deny (recommended) or allow',
    ]);
    expect(startupWarnings({ rowPolicies: {}, rowPoliciesDefault: undefined })).toEqual([]);
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
