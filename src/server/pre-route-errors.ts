/**
 * Failures before routing get the one error body too: a URL that is not valid percent-encoding, a path parameter
 * longer than the router takes (fastify's defaults answer those in their own shape, 400 / 414), and the HTTP
 * parser's own refusals (request line or headers over Node's limit, malformed requests, a request that did not
 * arrive in time), which never reach fastify at all.
 */
import type { FastifyServerOptions } from 'fastify';
import type { Socket } from 'node:net';
import { ApiError, errorBody } from '../core/errors.js';
import { sendError } from './plugins/error-plugin.js';

/** The fastify options that answer failures before routing with the one error body. */
export const preRouteErrors = {
  frameworkErrors: (err, _request, reply) =>
    sendError(
      reply,
      new ApiError(
        'TG_BAD_REQUEST',
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'a path segment is too long'
          : 'the URL is not valid percent-encoding',
      ),
    ),
  clientErrorHandler,
} satisfies Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'>;

/** The HTTP parser's refusals, answered on the socket itself (no request object exists yet). */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's request timeout (TOPICGATE_REQUEST_TIMEOUT): the headers and body did not arrive in time.
  const late = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const apiErr = late
    ? new ApiError('TG_REQUEST_TIMEOUT', 'the request did not arrive in time; send it whole, without pauses')
    : new ApiError(
        'TG_BAD_REQUEST',
        err.code === 'HPE_HEADER_OVERFLOW'
          ? 'the request line or headers are too large'
          : 'the request is not valid HTTP',
      );
  const body = JSON.stringify(errorBody(apiErr));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${late ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
