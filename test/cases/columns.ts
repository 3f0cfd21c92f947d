/** Column nodes for planner and compiler tests: a table column, and a JSON field of `value` at a one-key path. */
import type { ColumnNode } from '../../src/query/tree/nodes.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';

export const table = (name: string, type: string): ColumnNode => ({
  kind: 'column',
  name,
  type,
  source: { kind: 'table' },
});

export const json = (name: string, type: string): ColumnNode => ({
  kind: 'column',
  name,
  type,
  source: { kind: 'json', from: 'value', path: [name] },
});

/** What sets a test topic apart: columns expanded from its payload, its schema, and whether it is a plain table. */
export interface TopicShape {
  expanded?: readonly ColumnNode[];
  schema?: string;
  kind?: 'topic' | 'table';
}

/**
 * A topic over these table columns in catalog `vast`, its broker time the `timestamp_broker` among them (none: a
 * table without one), its columns the table's and then the expanded ones.
 */
export function topicOf(columns: ColumnNode[], tableName = 't', shape: TopicShape = {}): TopicModel {
  const { expanded = [], schema = 's', kind = 'topic' } = shape;
  return {
    id: tableName,
    source: { kind: 'source', catalog: 'vast', schema, table: tableName, topicKind: kind, columns },
    columns: new Map([...columns, ...expanded].map((c) => [c.name, c])),
    time: columns.find((c) => c.name === 'timestamp_broker') ?? null,
  };
}
