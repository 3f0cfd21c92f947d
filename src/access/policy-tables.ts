/**
 * Which tables serve a topic's events (issue 31): the topic's own, and its native expansion table, named
 * `<topic>_expanded` by VAST's convention or `topics.<topic>.expansionTable` in the config file (blob/json/
 * native-expansion.ts). The relation is read from the names and the config alone, never from what the catalog lists
 * at the moment, so a table is classified as soon as it appears: an expansion table created after start-up, or
 * one whose topic is gone from the catalog for a while, still gets the topic's row policies.
 */
import type { TopicSettings } from '../config/config.js';

/** The schema part of a topic id (`<schema>:` when several schemas are served, else empty). */
function schemaPart(id: string): string {
  const at = id.indexOf(':');
  return at < 0 ? '' : id.slice(0, at + 1);
}

/**
 * The topics among `topicIds` whose events table `tableId` also serves, as their native expansion table (none:
 * the table serves its own events only). Both spellings count, configured or not, so no copy of a topic's events
 * escapes its policies by a setting.
 */
export function eventsOf(
  tableId: string,
  topicIds: Iterable<string>,
  topics: Readonly<Record<string, TopicSettings>>,
): string[] {
  const out: string[] = [];
  for (const topic of topicIds) {
    if (topic === tableId) continue;
    const configured = topics[topic]?.expansionTable;
    const byConfig = configured !== undefined && tableId === `${schemaPart(topic)}${configured}`;
    if (byConfig || tableId === `${topic}_expanded`) out.push(topic);
  }
  return out;
}
