/**
 * Native blob-expansion tables: VAST writes typed columns parsed from a topic's payload into a separate table
 * (`<topic>_expanded` by default, or the one configured). Whether its rows carry the topic's key and broker time
 * is not documented, so the gateway says what it finds instead of guessing a join.
 */
import type { TopicSettings } from '../../config/config.js';
import type { TableInfo } from '../../query/tree/topic-model.js';

export interface NativeExpansion {
  /** Topic id of the expansion table (query it like any table: its filters are pushed down). */
  name: string;
  found: boolean;
  columns: { name: string; type: string }[];
  joinable: boolean;
  note: string;
}

/** The schema part of a topic id: `<schema>:` when several schemas are served (ids are `<schema>:<table>`), else empty. */
function schemaPart(id: string): string {
  const at = id.indexOf(':');
  return at < 0 ? '' : id.slice(0, at + 1);
}

/**
 * The topic id of a topic's native expansion table: `topics.<t>.expansionTable` when configured, else
 * `<topic>_expanded`. A configured name is a table of the topic's schema, or with several schemas served a topic
 * id `<schema>:<table>` of any served schema (as topics are named in URLs and in the config's keys).
 */
export function expansionTableId(topicId: string, settings: TopicSettings | undefined): string {
  const configured = settings?.expansionTable;
  if (configured === undefined) return `${topicId}_expanded`;
  const schema = schemaPart(topicId);
  return schema !== '' && configured.includes(':') ? configured : `${schema}${configured}`;
}

/** The expansion table of topic `t`, if one is configured or follows the `<topic>_expanded` convention. */
export function nativeExpansionOf(
  t: TableInfo,
  tables: ReadonlyMap<string, TableInfo>,
  settings: TopicSettings | undefined,
): NativeExpansion | null {
  if (t.kind !== 'topic') return null;
  const configured = settings?.expansionTable;
  const id = expansionTableId(t.id, settings);
  const et = tables.get(id);
  if (!et) {
    return configured
      ? {
          name: id,
          found: false,
          columns: [],
          joinable: false,
          note: `the configured expansion table ${configured} is not served (no table ${id})`,
        }
      : null;
  }
  const has = (n: string) => et.columns.some((c) => c.name === n);
  const missing = ['key', 'timestamp_broker'].filter((n) => !has(n));
  const note = missing.length
    ? `${et.table} has no ${missing.join(' or ')}: its rows cannot be matched to ${t.table}'s events, so the gateway does not join them. ` +
      `Query ${et.id} on its own (its columns are real columns: filters on them are pushed down), or expand ${t.table}'s payload at query time (config: topics.${t.id}.expand).`
    : `${et.table} carries key and timestamp_broker: filter it by time like the topic; its typed columns are pushed down.`;
  return {
    name: et.id,
    found: true,
    columns: et.columns.map((c) => ({ name: c.name, type: c.type })),
    joinable: missing.length === 0,
    note,
  };
}

/** The topic a table is the native expansion of, by convention or configuration. */
export function expansionOf(
  t: TableInfo,
  tables: ReadonlyMap<string, TableInfo>,
  topics: Record<string, TopicSettings>,
): string | null {
  for (const topic of tables.values()) {
    if (topic.kind === 'topic' && expansionTableId(topic.id, topics[topic.id]) === t.id) return topic.id;
  }
  return null;
}
