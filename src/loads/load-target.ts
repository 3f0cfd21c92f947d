/**
 * A load's target (API.md "Loads run by Trino"): `<catalog>.<schema>.<table>` of plain lower-case names, checked
 * before anything is quoted. A target in a schema of the served topics is refused, so a load can never write into
 * the topics; the catalog must exist in Trino.
 */
import type { Config } from '../config/config.js';
import { ApiError } from '../core/errors.js';
import type { TargetNode } from '../query/tree/nodes.js';
import { compileCatalogs } from '../query/sql/compile-load.js';
import type { TrinoPort } from '../trino/trino-port.js';

/** One part of the target: what Trino would keep as written without quotes. */
const NAME = /^[a-z_][a-z0-9_]{0,127}$/;

/** The target's three names, or a 400 naming what is wrong. */
export function parseTarget(text: string, config: Pick<Config, 'catalog' | 'schemas'>): TargetNode {
  const parts = text.split('.');
  if (parts.length !== 3 || !parts.every((p) => NAME.test(p))) {
    throw new ApiError(
      'TG_BAD_TARGET',
      `target ${JSON.stringify(text)} is not <catalog>.<schema>.<table> of lower-case letters, digits and _`,
      { target: text },
    );
  }
  const [catalog, schema, table] = parts as [string, string, string];
  if (catalog === config.catalog && config.schemas.includes(schema)) {
    throw new ApiError('TG_BAD_TARGET', `target ${text} is in ${catalog}.${schema}, a schema of the served topics`, {
      target: text,
    });
  }
  return { kind: 'target', catalog, schema, table };
}

/** Refuses a target whose catalog Trino does not have. */
export async function checkTargetCatalog(t: TargetNode, trino: TrinoPort): Promise<void> {
  const { rows } = await trino.all(compileCatalogs(), { clientTags: ['catalog'] });
  if (!rows.some((r) => r[0] === t.catalog)) {
    throw new ApiError(
      'TG_BAD_TARGET',
      `target ${t.catalog}.${t.schema}.${t.table}: Trino has no catalog ${t.catalog}`,
      {
        target: `${t.catalog}.${t.schema}.${t.table}`,
      },
    );
  }
}
