/**
 * The start-up check of the row policies against the served tables (server.ts): every table a policy applies to,
 * its topic's own and the tables serving its events (policy-tables.ts), must take it.
 */
import type { Config } from '../config/config.js';
import type { TableInfo } from '../query/tree/topic-model.js';
import { topicModel } from '../read/topic-catalog.js';
import type { RowPolicies } from './row-policy.js';

/**
 * Problems of the configured row policies against the served tables, for the start-up check: a policy on a topic
 * not served; a policy that does not fit its topic's columns; a topic's policy that does not fit a table serving its
 * events (reported once: not again for a rule its own topic already refuses); and such a table's own policies
 * leaving out a role its topic restricts.
 */
export function rowPolicyProblems(
  policies: RowPolicies,
  tables: ReadonlyMap<string, TableInfo>,
  config: Pick<Config, 'catalog' | 'topics'>,
): string[] {
  const problems: string[] = [];
  const broken = new Set<string>();
  const named = new Set(policies.topics());
  for (const id of named) {
    const t = tables.get(id);
    if (!t) {
      problems.push(`rowPolicies.${id}: no such topic is served`);
      continue;
    }
    for (const p of policies.problems(topicModel(t, config))) {
      broken.add(p.rule);
      problems.push(p.text);
    }
  }
  for (const t of tables.values()) {
    if (named.has(t.id)) continue;
    for (const p of policies.problems(topicModel(t, config))) if (!broken.has(p.rule)) problems.push(p.text);
  }
  for (const id of named) if (tables.has(id)) problems.push(...policies.uncovered(id));
  return problems;
}
