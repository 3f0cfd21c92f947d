/**
 * The topic a read reads, as the routes that read events find it (events, query, read sessions and their streams):
 * the read entry's (entry/read-topic.ts) for the request's principal, the access in force and its audit line.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accessCallOf } from '../access/authorize.js';
import type { DecodedTypes } from '../blob/avro/decoded-types.js';
import * as entry from '../entry/read-topic.js';
import type { TopicModel } from '../query/tree/topic-model.js';

/** The topic, if the caller may `read` it (or `explain` on it): 404 when it may not see it, 403 without the action. */
export function topicFor(app: FastifyInstance, request: FastifyRequest, id: string, explain = false) {
  return entry.topicFor({ ...accessCallOf(request), services: app.tg }, id, explain);
}

/** The topic with the types of its decoded Avro key / value (entry/read-topic.ts). */
export function withDecodedFields(
  app: FastifyInstance,
  topic: TopicModel,
  decode: boolean,
  pinned?: DecodedTypes['versions'],
) {
  return entry.withDecodedFields(app.tg, topic, decode, pinned);
}
