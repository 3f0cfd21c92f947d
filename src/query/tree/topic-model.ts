/** A served table plus its configured expansions, as the planner sees it. */
import type { Config } from '../../config/config.js';
import { expansionColumns } from '../../blob/json/expansion.js';
import type { ColumnNode } from './nodes.js';
import { TIME_COLUMN } from './nodes.js';
import type { TopicModel } from '../plan.js';
import type { TableInfo } from '../../read/topic-catalog.js';

export function topicModel(t: TableInfo, config: Pick<Config, 'catalog' | 'topics'>): TopicModel {
  const settings = t.kind === 'topic' ? config.topics[t.id] : undefined;
  const tableColumns: ColumnNode[] = t.columns.map((c) => {
    // A key or value declared avro / json-sr: its bytes are Confluent frames (JSON paths must know it).
    const format = c.name === 'key' || c.name === 'value' ? settings?.[c.name]?.format : undefined;
    const framed = format === 'avro' || format === 'json-sr' ? format : undefined;
    return {
      kind: 'column',
      name: c.name,
      type: c.type,
      source: framed ? { kind: 'table', framed } : { kind: 'table' },
    };
  });
  const columns = new Map<string, ColumnNode>(tableColumns.map((c) => [c.name, c]));
  if (t.kind === 'topic') {
    // A table column wins over an expanded field of the same name.
    for (const c of expansionColumns(config.topics[t.id])) if (!columns.has(c.name)) columns.set(c.name, c);
  }
  const time = columns.get(TIME_COLUMN);
  return {
    id: t.id,
    source: {
      kind: 'source',
      catalog: config.catalog,
      schema: t.schema,
      table: t.table,
      topicKind: t.kind,
      columns: tableColumns,
    },
    columns,
    time: time && time.source.kind === 'table' && time.type.startsWith('timestamp') ? time : null,
  };
}
