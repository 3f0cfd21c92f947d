/**
 * Which tables hold the same events: a topic's own table and its native expansion table, named `<topic>_expanded`
 * by VAST's convention or `topics.<topic>.expansionTable` in the config file (a table of any served schema,
 * blob/json/native-expansion.ts). A row policy on either covers both (row-policy.ts). The relation is read from the
 * names and the config alone, never from what the catalog lists at the moment, so a table is classified as soon
 * as it appears: an expansion table created after start-up, or one whose topic is gone from the catalog for a
 * while, still gets the topic's row policies.
 */
import type { TopicSettings } from '../config/config.js';
import { expansionTableId } from '../blob/json/native-expansion.js';

/** Does `tableId` serve the events of `topic` as its native expansion table (by the convention or the config)? */
function expands(tableId: string, topic: string, topics: Readonly<Record<string, TopicSettings>>): boolean {
  if (topic === tableId) return false;
  // Both spellings count, configured or not, so no copy of a topic's events escapes its policies by a setting.
  return tableId === `${topic}_expanded` || tableId === expansionTableId(topic, topics[topic]);
}

/**
 * The ids among `ids` whose table holds the same events as `tableId`: the topics it is the expansion table of,
 * and the expansion tables of `tableId` as a topic (none: the table holds its own events only).
 */
export function sameEvents(
  tableId: string,
  ids: Iterable<string>,
  topics: Readonly<Record<string, TopicSettings>>,
): string[] {
  const out: string[] = [];
  for (const id of ids) if (expands(tableId, id, topics) || expands(id, tableId, topics)) out.push(id);
  return out;
}
