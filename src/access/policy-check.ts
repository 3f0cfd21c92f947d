/**
 * The start-up check of the row policies against the served tables (server.ts): every table a policy applies to,
 * its topic's own and the tables serving its events (policy-tables.ts), must take it. A topic whose key or value is
 * Avro is checked with its decoded fields (`value.customer.country`), read from the Schema Registry as a read does.
 */
import type { Config } from '../config/config.js';
import type { TableInfo, TopicModel } from '../query/tree/topic-model.js';
import { topicModel } from '../read/topic-catalog.js';
import { decodedTypes } from '../blob/avro/decoded-types.js';
import type { RegistryPort } from '../blob/avro/schema-registry.js';
import type { RowPolicies } from './row-policy.js';

/** The decoded key / value types of the topics that have policies, by topic id. */
export type DecodedAtStartup = ReadonlyMap<string, NonNullable<TopicModel['decoded']>>;

/**
 * The decoded key / value types of the Avro topics that row policies name, from the registry, and a warning for
 * each topic whose schemas could not be read (its policies are then checked per read, where one that does not fit
 * refuses the read with a 403, never serves it unrestricted).
 */
export async function decodedForPolicies(
  policies: RowPolicies,
  config: Pick<Config, 'topics'>,
  registry: RegistryPort | undefined,
): Promise<{ decoded: DecodedAtStartup; unchecked: ReadonlySet<string>; warnings: string[] }> {
  const decoded = new Map<string, NonNullable<TopicModel['decoded']>>();
  const unchecked = new Set<string>();
  const warnings: string[] = [];
  for (const id of policies.topics()) {
    try {
      const found = await decodedTypes(id, config.topics[id], registry);
      if (found) decoded.set(id, found.types);
    } catch (err) {
      unchecked.add(id);
      warnings.push(
        `rowPolicies.${id}: not checked at start-up, the Schema Registry did not give its schemas ` +
          `(${(err as Error).message}); a read its policies do not fit is refused (403)`,
      );
    }
  }
  return { decoded, unchecked, warnings };
}

/**
 * Problems of the configured row policies against the served tables, for the start-up check: a policy on a topic
 * not served; a policy that does not fit its topic's columns (decoded fields included, `decoded`); a topic's policy
 * that does not fit a table serving its events (reported once: not again for a rule its own topic already
 * refuses); and such a table's own policies leaving out a role its topic restricts. Topics in `unchecked` (their
 * decoded fields unknown) are left to the reads.
 */
export function rowPolicyProblems(
  policies: RowPolicies,
  tables: ReadonlyMap<string, TableInfo>,
  config: Pick<Config, 'catalog' | 'topics'>,
  decoded: DecodedAtStartup = new Map(),
  unchecked: ReadonlySet<string> = new Set(),
): string[] {
  const problems: string[] = [];
  const broken = new Set<string>();
  const named = new Set(policies.topics());
  const model = (t: TableInfo): TopicModel => {
    const m = topicModel(t, config);
    const types = decoded.get(t.id);
    return types ? { ...m, decoded: types } : m;
  };
  for (const id of named) {
    const t = tables.get(id);
    if (!t) {
      problems.push(`rowPolicies.${id}: no such topic is served`);
      continue;
    }
    if (unchecked.has(id)) continue;
    for (const p of policies.problems(model(t))) {
      broken.add(p.rule);
      problems.push(p.text);
    }
  }
  for (const t of tables.values()) {
    if (named.has(t.id)) continue;
    for (const p of policies.problems(model(t))) if (!broken.has(p.rule)) problems.push(p.text);
  }
  for (const id of named) if (tables.has(id)) problems.push(...policies.uncovered(id));
  return problems;
}
