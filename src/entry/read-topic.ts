/**
 * The topic a read reads, for any entrance (events, query, read sessions and their streams): the caller's right to
 * read it checked first (access/access-checks.ts), then the topic with the types of its decoded payloads, and the
 * caller's row scope on it.
 */
import { checkAction, rowScopeOf, type AccessCall } from '../access/access-checks.js';
import { decodedTypes, type DecodedTypes } from '../blob/avro/decoded-types.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { TopicCatalog } from '../read/topic-catalog.js';
import type { ReadServices } from './read-call.js';

/** What finding a topic needs: the caller's access call, and the catalog of topics beside the read's services. */
export interface TopicCall extends AccessCall {
  services: Pick<ReadServices, 'config' | 'registry'> & { catalog: TopicCatalog };
}

/** The topic, if the caller may `read` it (or `explain` on it): 404 when it may not see it, 403 without the action. */
export async function topicFor(call: TopicCall, id: string, explain = false): Promise<TopicModel> {
  checkAction(call, id, explain ? 'explain' : 'read');
  return call.services.catalog.model(id);
}

/**
 * The topic with the types of its decoded Avro key / value, so a request can name their fields (`value.amount`);
 * `decode=false` names none. The reader versions are pinned for the response (`pinned`: those chosen earlier).
 */
export async function withDecodedFields(
  services: Pick<ReadServices, 'config' | 'registry'>,
  topic: TopicModel,
  decode: boolean,
  pinned?: DecodedTypes['versions'],
) {
  const found = decode
    ? await decodedTypes(topic.id, services.config.topics[topic.id], services.registry, pinned)
    : null;
  return found ? { topic: { ...topic, decoded: found.types }, readerVersions: found.versions } : { topic };
}

/** The caller's row scope on the topic (row policies), which the planner ANDs into every query of the read. */
export function readScopeOf(call: AccessCall, topic: TopicModel): RowScope {
  return rowScopeOf(call, topic);
}
