/** Schema inference for blob expansion (API.md "Blob expansion"): sample payloads, propose typed columns. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.js';
import { SchemaInferrer } from '../blob/infer.js';
import { topicModel } from '../catalog/topic-model.js';
import { compileQuery } from '../query/compile.js';
import { planRead } from '../query/plan.js';
import { parseInstant } from '../query/time.js';
import { PATH_ERRORS, TRINO_ERRORS, errorResponses } from '../schemas/error.js';
import { InferQuery, InferResult } from '../schemas/infer.js';
import { TopicParams } from '../schemas/topic.js';

const DAY = 86_400_000;

const inferRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/topics/:topic/schema/infer',
    {
      schema: {
        tags: ['topics'],
        summary: 'Infer typed fields from the JSON payloads of sampled events',
        description:
          'Returns each field path with its inferred Trino type and how often it was present, a ready `expand` block for the config file, and the VAST blob-expansion `arrow_schema` list for the same fields (nested names joined with `__`). Payloads that are not UTF-8 or not JSON objects are counted, not fatal.',
        params: TopicParams,
        querystring: InferQuery,
        response: {
          200: InferResult,
          // Not a topic table (400), the times, the window or sample above the caps (422), and Trino.
          ...errorResponses([...PATH_ERRORS, 'TG_TOPIC_NOT_FOUND', 'TG_BAD_TIME', 'TG_TOO_EXPENSIVE', ...TRINO_ERRORS]),
        },
      },
    },
    async (request) => {
      const { config, catalog, trino } = app.tg;
      const table = await catalog.get(request.params.topic);
      const topic = topicModel(table, config);
      if (!topic.time || table.kind !== 'topic') {
        throw new ApiError('TG_BAD_REQUEST', `${topic.id} is not a topic table: it has no JSON payload to infer from`);
      }
      const now = Date.now();
      const until = request.query.until !== undefined ? parseInstant(request.query.until, 'until', now).epochMs : now;
      const since =
        request.query.since !== undefined ? parseInstant(request.query.since, 'since', now).epochMs : until - DAY;
      if (until <= since) throw new ApiError('TG_BAD_TIME', 'until must be after since', { parameter: 'until' });
      if (until - since > config.inferMaxWindowMs) {
        throw new ApiError(
          'TG_TOO_EXPENSIVE',
          `the window is wider than ${config.inferMaxWindowMs / 3_600_000}h: narrow since/until`,
          { parameter: 'since' },
        );
      }
      const sample = request.query.sample ?? 1000;
      if (sample > config.inferMaxSample) {
        throw new ApiError('TG_TOO_EXPENSIVE', `sample ${sample} is above the maximum ${config.inferMaxSample}`, {
          parameter: 'sample',
        });
      }
      const iso = (ms: number) => new Date(ms).toISOString();
      const plan = planRead(
        topic,
        { select: ['value'], where: null, since: iso(since), until: iso(until), limit: sample },
        { defaultLimit: sample, maxLimit: sample },
        null,
        now,
      );
      // Any `sample` events of the window: no order, so the storage can stop early (LIMIT is passed down).
      const sql = compileQuery({ ...plan.tree, order: [], totalOrder: false }, { extraRow: false });
      const inferrer = new SchemaInferrer();
      const result = await trino.query(sql, { timeoutMs: config.queryTimeoutMs });
      for await (const batch of result.batches) {
        for (const row of batch) inferrer.add(row[0] === null ? null : Buffer.from(row[0] as string, 'base64'));
      }
      return {
        topic: topic.id,
        window: { since: iso(since), until: iso(until) },
        ...inferrer.result(table.columns.map((c) => c.name)),
      };
    },
  );
};

export default inferRoutes;
