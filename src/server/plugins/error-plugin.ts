/**
 * One error body for every failure (API.md "Errors"), produced by errorBody(). Validation failures name the
 * culprit; 5xx bodies carry no internals (the log has them).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, errorBody } from '../../core/errors.js';
import { QueryCancelledError, logFailure, toApiError } from '../../trino/trino-errors.js';

function fromFastify(err: FastifyError): ApiError | undefined {
  if (err.validation) {
    const v = err.validation[0];
    const where = err.validationContext ?? 'request';
    const field = v?.instancePath ? v.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
    const params = v?.params as { missingProperty?: string; additionalProperty?: string } | undefined;
    const extra = params?.additionalProperty;
    const name = params?.missingProperty ?? (extra ? [field, extra].filter(Boolean).join('.') : field || where);
    if (extra) {
      return new ApiError('TG_BAD_REQUEST', `${where} ${name}: unknown member`, { in: where, field: name });
    }
    return new ApiError('TG_BAD_REQUEST', `${where} ${name}: ${v?.message ?? 'is invalid'}`, {
      in: where,
      field: name,
    });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('TG_PAYLOAD_TOO_LARGE', 'the request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('TG_UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('TG_BAD_REQUEST', 'the request body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('TG_BAD_REQUEST', `the request body is not valid JSON`);
    default:
      break;
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500 && err.name !== 'ApiError') {
    return new ApiError('TG_BAD_REQUEST', err.message.split('\n')[0] ?? 'bad request');
  }
  return undefined;
}

/** Sends the error body for any error; used by the handler and by routes that stream. */
export function sendError(reply: FastifyReply, apiErr: ApiError): FastifyReply {
  if (apiErr.retryAfterS) reply.header('Retry-After', String(apiErr.retryAfterS));
  // RFC 9110 15.5.2: a 401 names the scheme that would be accepted (RFC 6750 for bearer tokens).
  if (apiErr.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="topicgate"');
  if (apiErr.queryId) reply.header('X-Trino-Query-Id', apiErr.queryId);
  return reply.status(apiErr.status).type('application/json; charset=utf-8').send(errorBody(apiErr));
}

async function errorsPlugin(app: FastifyInstance): Promise<void> {
  // Request bodies are JSON only: anything else is a 415, not a string that fails validation.
  app.removeContentTypeParser(['text/plain']);
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiErr = err instanceof ApiError ? err : (fromFastify(err) ?? toApiError(err));
    // A query cancelled because its client went away (access/query-lease.ts) is no failure and no time limit.
    if (err instanceof QueryCancelledError && err.reason === 'aborted' && request.raw.destroyed) {
      request.log.info({ queryId: err.queryId }, 'the client went away: its query was cancelled');
    } else logFailure(request.log, apiErr, err);
    return sendError(reply, apiErr);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('TG_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}

export default fp(errorsPlugin, { name: 'topicgate-errors' });
