/**
 * Which tables hold the same events: a topic's own table and its native expansion tables, named `<topic>_expanded`
 * by VAST's convention and `topics.<topic>.expansionTable` in the config file (a table of any served schema,
 * blob/json/native-expansion.ts). A row policy on any of them covers them all (row-policy.ts). The relation is read
 * from the names and the config alone, never from what the catalog lists at the moment, so a table is classified as
 * soon as it appears: an expansion table created after start-up, or one whose topic is gone from the catalog for a
 * while, still gets the topic's row policies.
 */
import type { TopicSettings } from '../config/config.js';
import { expansionTableId } from '../blob/json/native-expansion.js';

const SUFFIX = '_expanded';

/** The tables holding a topic's events: its own, and both spellings of its expansion table, configured or not. */
function eventTables(topic: string, topics: Readonly<Record<string, TopicSettings>>): string[] {
  return [topic, `${topic}${SUFFIX}`, expansionTableId(topic, topics[topic])];
}

/**
 * The ids among `ids` whose table holds the same events as `tableId` (none: the table holds its own events only):
 * the topics it is an expansion table of, and every expansion table of those topics and of `tableId` itself. So
 * no copy of a topic's events escapes a policy set on another copy, whichever spelling names it.
 */
export function sameEvents(
  tableId: string,
  ids: Iterable<string>,
  topics: Readonly<Record<string, TopicSettings>>,
): string[] {
  const owners = new Set([tableId]);
  if (tableId.endsWith(SUFFIX)) owners.add(tableId.slice(0, -SUFFIX.length));
  for (const topic of Object.keys(topics)) if (expansionTableId(topic, topics[topic]) === tableId) owners.add(topic);
  const group = new Set([...owners].flatMap((topic) => eventTables(topic, topics)));
  group.delete(tableId);
  return [...ids].filter((id) => group.has(id));
}
