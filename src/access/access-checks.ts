/**
 * Authorization, whichever way the caller came in (API.md "Access"): a topic the caller may not see is the same 404
 * as a topic that does not exist; a visible topic without the action granted is a 403 TG_FORBIDDEN. The caller's
 * row scope for the planner comes from here too. Each decision is recorded in the audit facts the caller's
 * entrance keeps (an HTTP request's audit line: authorize.ts).
 */
import { ApiError, topicNotFound } from '../core/errors.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { Action } from '../config/access-schema.js';
import type { Grants } from './grants.js';
import type { Principal } from './principal.js';
import type { RowPolicies } from './row-policy.js';

/** An authenticated caller and the access in force for it, with the audit facts its decisions are recorded in. */
export interface AccessCall {
  access: { readonly grants: Grants; readonly rowPolicies: RowPolicies };
  principal: Principal;
  audit: { topic?: string; action?: string };
}

const VERB: Record<Action, string> = {
  read: 'read',
  explain: 'explain queries on',
  infer: 'infer the schema of',
  cursors: 'use cursors on',
  loads: 'load into tables',
  admin: 'administer',
} satisfies Record<Action, string>;

/** Throws the 404 when the caller may not see the topic (checked before the catalog, so both 404s match). */
export function checkVisible(call: AccessCall, topicId: string): void {
  if (!call.access.grants.sees(call.principal, topicId)) throw topicNotFound(topicId);
  call.audit.topic = topicId;
}

/** Throws the 404 (not visible) or the 403 (visible, `action` not granted). */
export function checkAction(call: AccessCall, topicId: string, action: Action): void {
  checkVisible(call, topicId);
  call.audit.action = action;
  if (!call.access.grants.can(call.principal, topicId, action)) {
    throw new ApiError('TG_FORBIDDEN', `this caller may not ${VERB[action]} topic ${JSON.stringify(topicId)}`, {
      action,
    });
  }
}

/** The caller's row scope on a topic: its row-policy filter (null: every row) and its principal's id. */
export function rowScopeOf(call: AccessCall, topic: TopicModel): RowScope {
  return {
    filter: call.access.rowPolicies.filterFor(topic, call.principal),
    principal: call.principal.id,
  };
}
