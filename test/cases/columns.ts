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

/** A topic over these table columns, its broker time the `timestamp_broker` among them. */
export function topicOf(columns: ColumnNode[], tableName = 't'): TopicModel {
  return {
    id: tableName,
    source: { kind: 'source', catalog: 'vast', schema: 's', table: tableName, topicKind: 'topic', columns },
    columns: new Map(columns.map((c) => [c.name, c])),
    time: columns.find((c) => c.name === 'timestamp_broker') ?? null,
  };
}
