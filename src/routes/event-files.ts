/**
 * A settled window as a file (API.md "Windows as files"): `GET|HEAD /v1/topics/{topic}/events.{suffix}` with the
 * parameters of /events that choose rows (since, until, filters, select, decode, compression). The caller's
 * grants (topicFor) and row scope are taken on every request, before the file cache (http/window-file.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rowScope } from '../access/authorize.js';
import { ApiError, type ErrorCode } from '../core/errors.js';
import { topicFor, withDecodedFields } from '../http/request-topic.js';
import { readRequestFromQuery } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import { errorResponses } from './error-schema.js';
import { READ_ERRORS } from './events.js';
import { FileParams, FileQuery, FileResponses, NOT_FOR_FILES } from './event-files-schema.js';

/** A file reads as a bulk read of /events does, and adds the window's settling and the Range asked. */
const FILE_ERRORS: ErrorCode[] = [
  ...READ_ERRORS.filter((c) => c !== 'TG_BAD_CURSOR' && c !== 'TG_NOT_ACCEPTABLE'),
  'TG_WINDOW_NOT_SETTLED',
  'TG_RANGE_NOT_SATISFIABLE',
];

/** A parameter of /events that does not apply to a file is refused, never ignored. */
function checkParameters(query: Record<string, unknown>): void {
  const named = NOT_FOR_FILES.find((p) => query[p] !== undefined);
  if (named === undefined) return;
  throw new ApiError(
    'TG_BAD_REQUEST',
    `${named}= does not apply to a file: a file is the whole window, in timestamp_broker order, in its suffix's format`,
    { parameter: named },
  );
}

const eventFileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // GET and HEAD declared together: fastify's own HEAD route would answer `Content-Length: 0`.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/topics/:topic/events.:suffix',
    exposeHeadRoute: false,
    config: { data: true },
    schema: {
      tags: ['events'],
      summary: 'A settled window as a file, read by byte range',
      description:
        "The window's rows (`since` and `until` as instants, `until` at least the topic's `settle` ago, else 409 " +
        '`TG_WINDOW_NOT_SETTLED` naming when it settles), in timestamp_broker order, as one file made once per ' +
        'strong ETag into the file cache and then served by `Range`, so DuckDB `read_parquet(url)`, Polars ' +
        '`scan_parquet(url)` and pandas fetch only what they need. HEAD gives the length. Grants and row policies ' +
        'are checked on every request: each caller reads the file of its own row scope.',
      params: FileParams,
      querystring: FileQuery,
      response: { ...FileResponses, ...errorResponses(FILE_ERRORS) },
    },
    handler: async (request, reply) => {
      const q = request.query as Record<string, unknown>;
      checkParameters(q);
      const { suffix } = request.params;
      const decode = request.query.decode !== 'false';
      const model = await topicFor(app, request, request.params.topic);
      const { topic, readerVersions } = await withDecodedFields(app, model, decode);
      const req = readRequestFromQuery({ ...q, limit: 'all' }, resolver(topic));
      const rows = rowScope(request, topic);
      const { compression } = request.query;
      return reply.sendWindowFile({ suffix, topic, req, rows, readerVersions, decode, compression });
    },
  });
};

export default eventFileRoutes;
