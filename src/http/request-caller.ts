/** Who a read runs for, and through which Trino, as the access plugin set them on the request. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadCall } from '../entry/read-call.js';
import type { Caller } from '../query/tree/read-policy.js';
import type { PageTrino } from '../read/open-page.js';

/**
 * The caller's principal, once the access plugin has set `request.principal`; undefined on a request it did not
 * see. Read structurally so this file does not depend on that plugin.
 */
export function callerOf(request: FastifyRequest): Caller | undefined {
  return (request as { principal?: Caller | null }).principal ?? undefined;
}

/**
 * The request's own Trino port (the access plugin's, on every data route): its queries take the caller's query
 * slots and are cancelled when the client goes away. Read structurally, as callerOf; a route that reads without it
 * is a defect (its queries would escape the quotas), not something to paper over.
 */
export function requestTrino(request: FastifyRequest): PageTrino {
  const trino = (request as { trino?: PageTrino | null }).trino;
  if (!trino) throw new Error(`route ${request.routeOptions.url} reads through Trino but is not a data route`);
  return trino;
}

/** The read entry's call for this request: the app's services, the request's caller and its Trino port. */
export function readCallOf(app: FastifyInstance, request: FastifyRequest): ReadCall {
  return { services: app.tg, caller: callerOf(request), trino: requestTrino(request) };
}
