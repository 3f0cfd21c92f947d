/**
 * The topic a read reads, as the routes that read events find it (events, query, read sessions and their streams):
 * the caller's right to read it checked first, then the topic with the types of its decoded payloads.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authorize } from '../access/authorize.js';
import { decodedTypes, type DecodedTypes } from '../blob/avro/decoded-types.js';
import type { TopicModel } from '../query/tree/topic-model.js';

/** The topic, if the caller may `read` it (or `explain` on it): 404 when it may not see it, 403 without the action. */
export async function topicFor(app: FastifyInstance, request: FastifyRequest, id: string, explain = false) {
  authorize(request, id, explain ? 'explain' : 'read');
  return app.tg.catalog.model(id);
}

/**
 * The topic with the types of its decoded Avro key / value, so a request can name their fields (`value.amount`);
 * `decode=false` names none. The reader versions are pinned for the response (`pinned`: those chosen earlier).
 */
export async function withDecodedFields(
  app: FastifyInstance,
  topic: TopicModel,
  decode: boolean,
  pinned?: DecodedTypes['versions'],
) {
  const found = decode ? await decodedTypes(topic.id, app.tg.config.topics[topic.id], app.tg.registry, pinned) : null;
  return found ? { topic: { ...topic, decoded: found.types }, readerVersions: found.versions } : { topic };
}
