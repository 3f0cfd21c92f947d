/**
 * What the catalog tells a caller, for any entrance (API.md "Topics"): the served topics it may see, and one
 * topic's columns, expansions and payloads. A topic the caller may not see is the same 404 as one that does not
 * exist, and the other table of a topic (its native expansion, or the topic an expansion table holds) is named
 * only to a caller who may see it.
 */
import { checkVisible } from '../access/access-checks.js';
import { payloadInfo } from '../blob/avro/payload-info.js';
import { expansionOf, nativeExpansionOf } from '../blob/json/native-expansion.js';
import { DEFAULT_SETTLE } from '../config/config.js';
import type { TableInfo } from '../query/tree/topic-model.js';
import { topicModel } from '../read/topic-catalog.js';
import type { TopicCall } from './read-topic.js';

/** A topic as the listing names it. */
export function topicSummary(t: TableInfo) {
  return { name: t.id, schema: t.schema, table: t.table, kind: t.kind };
}

/** The served topics the caller may see. */
export async function visibleTopics(call: TopicCall) {
  const tables = [...(await call.services.catalog.tables()).values()];
  return call.access.grants.visibleTopics(call.principal, tables).map(topicSummary);
}

/** The topic's columns (table or expanded), its expansions and its payloads: 404 when the caller may not see it. */
export async function topicDetail(call: TopicCall, id: string) {
  checkVisible(call, id);
  const { catalog, config, registry } = call.services;
  const t = await catalog.get(id);
  const tables = await catalog.tables();
  const model = topicModel(t, config);
  const columns = [...model.columns.values()].map((c) =>
    c.source.kind === 'json'
      ? { name: c.name, type: c.type, origin: 'expansion' as const, path: config.topics[t.id]!.expand![c.name]!.path }
      : { name: c.name, type: c.type, origin: 'table' as const },
  );
  const sees = (other: string) => call.access.grants.sees(call.principal, other);
  const found = nativeExpansionOf(t, tables, config.topics[t.id]);
  const native = found && sees(found.name) ? found : null;
  const parent = t.kind === 'table' ? expansionOf(t, tables, config.topics) : null;
  const of = parent !== null && sees(parent) ? parent : null;
  const payloads = t.kind === 'topic' ? await payloadInfo(t.id, config.topics[t.id], registry) : undefined;
  return {
    ...topicSummary(t),
    catalog: config.catalog,
    columns,
    ...(native ? { expansionTable: native } : {}),
    ...(of ? { expansionOf: of } : {}),
    ...(payloads ? { payloads } : {}),
  };
}

/** How long after its broker time an event of the topic can no longer change (`topics.<t>.settle`). */
export function settleOf(call: Pick<TopicCall, 'services'>, id: string): string {
  return call.services.config.topics[id]?.settle ?? DEFAULT_SETTLE;
}
