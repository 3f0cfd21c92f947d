/**
 * Authorization at the edge of an HTTP request: the checks of access-checks.ts for the request's principal, with the
 * access in force, each decision recorded for the request's audit line.
 */
import type { FastifyRequest } from 'fastify';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { Action } from '../config/access-schema.js';
import { checkAction, checkVisible, rowScopeOf, type AccessCall } from './access-checks.js';

/** The request as an access call: its principal, the access in force, its audit facts. */
export function accessCallOf(request: FastifyRequest): AccessCall {
  return { access: request.server.access, principal: request.principal, audit: request.audit };
}

/** Throws the 404 when the caller may not see the topic (checked before the catalog, so both 404s match). */
export function authorizeVisible(request: FastifyRequest, topicId: string): void {
  checkVisible(accessCallOf(request), topicId);
}

/** Throws the 404 (not visible) or the 403 (visible, `action` not granted). */
export function authorize(request: FastifyRequest, topicId: string, action: Action): void {
  checkAction(accessCallOf(request), topicId, action);
}

/** May the caller administer the topic (others' cursors on it)? */
export function isAdmin(request: FastifyRequest, topicId: string): boolean {
  return request.server.access.grants.can(request.principal, topicId, 'admin');
}

/** The caller's row scope on a topic: its row-policy filter (null: every row) and its principal's id. */
export function rowScope(request: FastifyRequest, topic: TopicModel): RowScope {
  return rowScopeOf(accessCallOf(request), topic);
}
