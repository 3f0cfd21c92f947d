import type { FastifyRequest } from 'fastify';
import { authorize, isAdmin, rowScope } from '../access/authorize.js';
import type { CursorCaller } from '../cursors/cursor-parts.js';

/** The request's caller as the cursor service sees it (ownership, the `cursors` action, row scope). */
export function cursorCaller(request: FastifyRequest): CursorCaller {
  return {
    id: request.principal.id,
    name: request.principal.name,
    via: request.principal.via,
    authorize: (topic) => authorize(request, topic, 'cursors'),
    admin: (topic) => isAdmin(request, topic),
    rows: (topic) => rowScope(request, topic),
    trino: request.trino,
  };
}
