/**
 * A load's target (API.md "Loads run by Trino"): `<catalog>.<schema>.<table>` of plain lower-case names, checked
 * before anything is quoted. It must lie in a schema that `loads.targets` allows (`catalog.schema` patterns, `*`
 * any run of name characters within one part), and never in the topics' catalog (TOPICGATE_CATALOG) nor a served
 * schema, whatever the patterns say: a load can never write into the topics, nor make schemas or tables beside
 * them. The catalog must exist in Trino (asked only for an allowed target, so the answer tells nothing of others).
 */
import type { Config } from '../config/config.js';
import { ApiError } from '../core/errors.js';
import type { TargetNode } from '../query/tree/nodes.js';
import { compileCatalogs } from '../query/sql/compile-load.js';
import type { TrinoPort } from '../trino/trino-port.js';

/** One part of the target: what Trino would keep as written without quotes. */
const NAME = /^[a-z_][a-z0-9_]{0,127}$/;

/** Whether `catalog.schema` is matched by the pattern (config/loads-settings.ts's grammar). */
export function targetPatternMatches(pattern: string, catalog: string, schema: string): boolean {
  const parts = pattern.split('.');
  if (parts.length !== 2) return false;
  const part = (glob: string, name: string) =>
    // The pattern's grammar has only name characters and `*`: nothing else needs escaping.
    new RegExp(`^${glob.replaceAll('*', '[a-z0-9_]*')}$`).test(name);
  return part(parts[0]!, catalog) && part(parts[1]!, schema);
}

/** The target's three names, or a 400 naming what is wrong and where loads may write. */
export function parseTarget(text: string, config: Pick<Config, 'catalog' | 'loads'>): TargetNode {
  const parts = text.split('.');
  if (parts.length !== 3 || !parts.every((p) => NAME.test(p))) {
    throw new ApiError(
      'TG_BAD_TARGET',
      `target ${JSON.stringify(text)} is not <catalog>.<schema>.<table> of lower-case letters, digits and _`,
      { target: text },
    );
  }
  const [catalog, schema, table] = parts as [string, string, string];
  const allowed = config.loads.targets;
  const refuse = (why: string) =>
    new ApiError('TG_BAD_TARGET', `target ${text} ${why}; loads may write in ${allowed.join(', ') || 'no schema'}`, {
      target: text,
      allowed,
    });
  // Every served schema is in the topics' catalog: refusing the catalog refuses them all.
  if (catalog === config.catalog) throw refuse(`is in ${catalog}, the catalog of the served topics`);
  if (!allowed.some((p) => targetPatternMatches(p, catalog, schema))) {
    throw refuse('is outside the schemas loads may write in (loads.targets)');
  }
  return { kind: 'target', catalog, schema, table };
}

/** Refuses a target whose catalog Trino does not have. */
export async function checkTargetCatalog(t: TargetNode, trino: TrinoPort): Promise<void> {
  const { rows } = await trino.all(compileCatalogs(), { clientTags: ['catalog'] });
  if (!rows.some((r) => r[0] === t.catalog)) {
    const target = targetText(t);
    throw new ApiError('TG_BAD_TARGET', `target ${target}: Trino has no catalog ${t.catalog}`, { target });
  }
}

/** `catalog.schema.table`: how a target is written, and the key of its claim in the load store. */
export function targetText(t: TargetNode): string {
  return `${t.catalog}.${t.schema}.${t.table}`;
}
