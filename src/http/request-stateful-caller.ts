import type { FastifyRequest } from 'fastify';
import { authorize, isAdmin, rowScope } from '../access/authorize.js';
import type { Action } from '../config/access-schema.js';
import type { StatefulCaller } from '../access/stateful-caller.js';

/** The request's caller as the cursor service sees it (ownership, the `cursors` action, row scope). */
export const cursorCaller = (request: FastifyRequest): StatefulCaller => callerFor(request, 'cursors');

/**
 * The request's caller as a stateful service (cursors, loads) sees it: its principal (what owns the state),
 * `action` checked on a topic, its admin rights, its row scope and its Trino.
 */
export function callerFor(request: FastifyRequest, action: Action): StatefulCaller {
  return {
    id: request.principal.id,
    name: request.principal.name,
    via: request.principal.via,
    authorize: (topic) => authorize(request, topic, action),
    admin: (topic) => isAdmin(request, topic),
    rows: (topic) => rowScope(request, topic),
    trino: request.trino,
  };
}
