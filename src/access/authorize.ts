/**
 * Authorization at the edge of a request (API.md "Access"): a topic the caller may not see is the same 404 as
 * a topic that does not exist; a visible topic without the action granted is a 403 TG_FORBIDDEN. The caller's
 * row scope for the planner comes from here too. Each decision is recorded for the request's audit line.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, topicNotFound } from '../core/errors.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { Action } from '../config/access-schema.js';

const VERB: Record<Action, string> = {
  read: 'read',
  explain: 'explain queries on',
  infer: 'infer the schema of',
  cursors: 'use cursors on',
  loads: 'load into tables',
  admin: 'administer',
} satisfies Record<Action, string>;

/** Throws the 404 when the caller may not see the topic (checked before the catalog, so both 404s match). */
export function authorizeVisible(request: FastifyRequest, topicId: string): void {
  if (!request.server.access.grants.sees(request.principal, topicId)) throw topicNotFound(topicId);
  request.audit.topic = topicId;
}

/** Throws the 404 (not visible) or the 403 (visible, `action` not granted). */
export function authorize(request: FastifyRequest, topicId: string, action: Action): void {
  authorizeVisible(request, topicId);
  request.audit.action = action;
  if (!request.server.access.grants.can(request.principal, topicId, action)) {
    throw new ApiError('TG_FORBIDDEN', `this caller may not ${VERB[action]} topic ${JSON.stringify(topicId)}`, {
      action,
    });
  }
}

/** May the caller administer the topic (others' cursors on it)? */
export function isAdmin(request: FastifyRequest, topicId: string): boolean {
  return request.server.access.grants.can(request.principal, topicId, 'admin');
}

/** The caller's row scope on a topic: its row-policy filter (null: every row) and its principal's id. */
export function rowScope(request: FastifyRequest, topic: TopicModel): RowScope {
  return {
    filter: request.server.access.rowPolicies.filterFor(topic, request.principal),
    principal: request.principal.id,
  };
}
