/** Named cursors for scheduled batch loaders (API.md "Cursors for scheduled batch loaders"). */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { CURSOR_NAME, showPosition, type CursorDefinition } from '../cursors/cursor-service.js';
import type { WhereJson } from '../query/read-request.js';
import { mediaTypeOf, streamPlan } from '../read/run-read.js';
import { ErrorResponses, ReadResponses, Where } from './events-schema.js';

const NameParams = Type.Object({
  name: Type.String({
    pattern: CURSOR_NAME.source,
    description: 'Cursor name: letters, digits, . _ -',
    examples: ['orders-loader'],
  }),
});

const PositionSchema = Type.Object({
  timestamp: Type.Union([Type.String(), Type.Null()], {
    description: 'Broker time of the position (null: the beginning)',
  }),
  skip: Type.Integer({ description: 'Events at that exact time already consumed (ties are exact)' }),
});

const CursorBody = Type.Object(
  {
    topic: Type.String({ examples: ['orders'] }),
    start: Type.Optional(
      Type.String({ description: 'earliest, latest, or an ISO-8601 instant', examples: ['earliest'] }),
    ),
    filter: Type.Optional(
      Type.Unsafe<WhereJson>({ ...Where, description: 'A `where` tree as in POST /v1/topics/{topic}/query' }),
    ),
    select: Type.Optional(Type.Array(Type.String(), { maxItems: 200 })),
    settle: Type.Optional(
      Type.String({ description: 'Events newer than now minus this are not read yet', examples: ['30s'] }),
    ),
  },
  { additionalProperties: false },
);

const CursorView = Type.Object({
  name: Type.String(),
  definition: Type.Unknown(),
  position: PositionSchema,
  generation: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  lag: Type.Optional(Type.Object({ events: Type.Integer(), ms: Type.Union([Type.Integer(), Type.Null()]) })),
});

export default async function cursorRoutes(app: FastifyInstance): Promise<void> {
  const svc = () => app.tg.cursors;
  const view = (c: Awaited<ReturnType<ReturnType<typeof svc>['get']>>) => ({
    name: c.name,
    definition: JSON.parse(c.definition) as unknown,
    position: showPosition(c.position),
    generation: c.generation,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  });
  const errors = ErrorResponses;

  app.put<{ Params: Static<typeof NameParams>; Body: Static<typeof CursorBody> }>(
    '/cursors/:name',
    {
      schema: {
        tags: ['cursors'],
        summary: 'Create a named cursor (the same definition again is a no-op)',
        params: NameParams,
        body: CursorBody,
        response: { 200: CursorView, 201: CursorView, ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body as Partial<CursorDefinition> & { topic: string; filter?: WhereJson };
      const { created, record } = await svc().create(request.params.name, body);
      return reply.status(created ? 201 : 200).send(view(record));
    },
  );

  app.get<{ Params: Static<typeof NameParams> }>(
    '/cursors/:name',
    {
      schema: {
        tags: ['cursors'],
        summary: 'A cursor: definition, committed position and lag',
        params: NameParams,
        response: { 200: CursorView, ...errors },
      },
    },
    async (request) => {
      const c = await svc().get(request.params.name);
      return { ...view(c), lag: await svc().lag(c) };
    },
  );

  app.post<{ Params: Static<typeof NameParams>; Querystring: { limit?: number; format?: string } }>(
    '/cursors/:name/read',
    {
      schema: {
        tags: ['cursors'],
        summary: 'The next batch after the committed position (the same batch until it is committed)',
        description: 'The batch token is in the `Topicgate-Batch` header (and `batch` in JSON). Commit it to move on.',
        params: NameParams,
        querystring: Type.Object({
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              description:
                'Most events in the batch (default 10000, or TOPICGATE_MAX_LIMIT when lower; more than the maximum is a 422)',
            }),
          ),
          format: Type.Optional(Type.String({ description: 'json, ndjson, csv or arrow; overrides Accept' })),
        }),
        response: { ...ReadResponses, ...errors },
      },
    },
    async (request, reply) => {
      const media = mediaTypeOf(request, request.query.format);
      const { pending, plan } = await svc().batch(request.params.name, request.query.limit);
      reply.header('Topicgate-Batch', pending.token);
      reply.header('Topicgate-Batch-Rows', String(pending.rows));
      const meta = {
        batch: pending.token,
        batchRows: pending.rows,
        from: showPosition(pending.from),
        to: showPosition(pending.to),
      };
      return streamPlan(app, request, reply, plan, media, { paged: false, meta });
    },
  );

  app.post<{ Params: Static<typeof NameParams>; Body: { batch: string } }>(
    '/cursors/:name/commit',
    {
      schema: {
        tags: ['cursors'],
        summary: 'Move the cursor to the end of a batch (committing twice is a no-op)',
        params: NameParams,
        body: Type.Object({ batch: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            committed: Type.Boolean({ description: 'false: it was already committed' }),
            rows: Type.Integer(),
            position: PositionSchema,
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const r = await svc().commit(request.params.name, request.body.batch);
      return { committed: r.committed, rows: r.rows, position: showPosition(r.position) };
    },
  );

  app.post<{ Params: Static<typeof NameParams>; Body: { to: string } }>(
    '/cursors/:name/seek',
    {
      schema: {
        tags: ['cursors'],
        summary: 'Move the cursor to earliest, latest or an instant',
        params: NameParams,
        body: Type.Object({ to: Type.String({ examples: ['earliest'] }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ position: PositionSchema }), ...errors },
      },
    },
    async (request) => ({ position: showPosition(await svc().seek(request.params.name, request.body.to)) }),
  );

  app.delete<{ Params: Static<typeof NameParams> }>(
    '/cursors/:name',
    {
      schema: {
        tags: ['cursors'],
        summary: 'Delete a cursor and its history',
        params: NameParams,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await svc().delete(request.params.name);
      return reply.status(204).send();
    },
  );

  app.get<{ Params: Static<typeof NameParams>; Querystring: { limit?: number } }>(
    '/cursors/:name/history',
    {
      schema: {
        tags: ['cursors'],
        summary: 'Batches committed, newest first',
        params: NameParams,
        querystring: Type.Object({
          limit: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 10_000, description: 'Most batches listed (default 100)' }),
          ),
        }),
        response: {
          200: Type.Object({
            batches: Type.Array(
              Type.Object({
                batch: Type.String(),
                from: PositionSchema,
                to: PositionSchema,
                rows: Type.Integer(),
                committedAt: Type.String(),
              }),
            ),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const entries = await svc().history(request.params.name, request.query.limit ?? 100);
      return {
        batches: entries.map((e) => ({
          batch: e.batchId,
          from: showPosition(e.from),
          to: showPosition(e.to),
          rows: e.rows,
          committedAt: e.committedAt,
        })),
      };
    },
  );
}
