/**
 * Declared blob expansion: per-topic `expand` entries of the config file become columns of the topic whose
 * values come from JSON in the payload. This module produces column nodes only; the compiler writes the SQL.
 */
import type { TopicSettings } from '../../config/config.js';
import type { ColumnNode } from '../../query/tree/nodes.js';
import { parseJsonPath } from './json-path.js';
import { parseTrinoType } from '../../core/trino-types.js';

/** Names an expanded field may have: they share the namespace of table columns and URL parameters. */
export const EXPANDED_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Problems with a topic's expand block, one line each (reported at start-up). */
export function checkExpansion(topic: string, settings: TopicSettings | undefined): string[] {
  const problems: string[] = [];
  for (const [name, field] of Object.entries(settings?.expand ?? {})) {
    const where = `topics.${topic}.expand.${name}`;
    if (!EXPANDED_NAME.test(name)) problems.push(`${where}: the name must match ${EXPANDED_NAME.source}`);
    try {
      parseJsonPath(field.path);
    } catch (err) {
      problems.push(`${where}.path: ${(err as Error).message}`);
    }
    try {
      parseTrinoType(field.type);
      if (!/^[a-z0-9_(), "]+$/i.test(field.type)) throw new Error('unsupported characters');
    } catch (err) {
      problems.push(`${where}.type: ${JSON.stringify(field.type)} is not a Trino type (${(err as Error).message})`);
    }
  }
  return problems;
}

/** The expanded fields of a topic as column nodes, reading JSON from the `value` column. */
export function expansionColumns(settings: TopicSettings | undefined): ColumnNode[] {
  return Object.entries(settings?.expand ?? {}).map(([name, field]) => ({
    kind: 'column',
    name,
    type: field.type
      .trim()
      .toLowerCase()
      .replace(/\s*,\s*/g, ','),
    source: {
      kind: 'json',
      from: 'value',
      path: parseJsonPath(field.path),
      // json-sr (API.md "Schema Registry payloads"): the JSON after the 5-byte frame.
      ...(settings?.value?.format === 'json-sr' ? { framed: true } : {}),
    },
  }));
}
