/** Named cursors for scheduled batch loaders (API.md "Cursors for scheduled batch loaders"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ErrorCode } from '../core/errors.js';
import { showPosition } from '../cursors/positions.js';
import type { CursorRecord } from '../cursors/cursor-store.js';
import { cursorName } from '../cursors/cursor-keys.js';
import {
  ACCESS_ERRORS,
  BODY_ERRORS,
  FILTER_ERRORS,
  PATH_ERRORS,
  TRINO_ERRORS,
  errorResponses,
} from './error-schema.js';
import { cursorCaller } from '../http/request-stateful-caller.js';
import {
  BatchQuery,
  CommitBody,
  CommitResult,
  CursorBody,
  CursorParams,
  CursorView,
  History,
  HistoryQuery,
  SeekBody,
  SeekResult,
} from './cursors-schema.js';
import { ReadResponses } from './read-response-schema.js';

/**
 * Every cursor route: a name the schema or the router refuses, no cursor of that name (cursor-service.ts), an
 * admin naming a cursor several principals have (cursor-keys.ts), the cursor store unreachable
 * (state/store-failures.ts).
 */
const NAMED = [
  ...PATH_ERRORS,
  ...ACCESS_ERRORS,
  'TG_TOPIC_NOT_FOUND',
  'TG_CURSOR_NOT_FOUND',
  'TG_CURSOR_CONFLICT',
  'TG_STATE_UNAVAILABLE',
] as const satisfies readonly ErrorCode[];

/**
 * Planning a read of the cursor (cursor-service.ts through query/planner.ts), on create, seek, read and lag: its
 * topic (gone, or not a topic table), its filter and select, the batch limit (FILTER_ERRORS), the guardrail on
 * filters that are all evaluated after the scan, and Trino (the catalog; the batch, its summary and the lag).
 */
const PLANNED = [
  'TG_TOPIC_NOT_FOUND',
  ...FILTER_ERRORS,
  'TG_TIME_BOUND_REQUIRED',
  ...TRINO_ERRORS,
] as const satisfies readonly ErrorCode[];

function view(c: CursorRecord): CursorView {
  return {
    name: cursorName(c.name),
    definition: JSON.parse(c.definition) as unknown,
    position: showPosition(c.position),
    generation: c.generation,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** Create a cursor, and read its definition, position and lag. */
function definitionRoutes(app: App): void {
  const svc = () => app.tg.cursors;

  app.put(
    '/cursors/:name',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'Create a named cursor (the same definition again is a no-op)',
        params: CursorParams,
        body: CursorBody,
        response: {
          200: CursorView,
          201: CursorView,
          // A bad start (TG_BAD_TIME) or settle (TG_BAD_VALUE), a definition that differs from the existing one.
          ...errorResponses([
            ...PATH_ERRORS,
            ...ACCESS_ERRORS,
            ...BODY_ERRORS,
            ...PLANNED,
            'TG_BAD_TIME',
            'TG_CURSOR_CONFLICT',
            'TG_STATE_UNAVAILABLE',
          ]),
        },
      },
    },
    async (request, reply) => {
      const { created, record } = await svc().create(request.params.name, request.body, cursorCaller(request));
      return reply.status(created ? 201 : 200).send(view(record));
    },
  );

  app.get(
    '/cursors/:name',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'A cursor: definition, committed position and lag',
        params: CursorParams,
        // The lag is counted in Trino.
        response: { 200: CursorView, ...errorResponses([...NAMED, ...PLANNED]) },
      },
    },
    async (request) => {
      const caller = cursorCaller(request);
      const c = await svc().get(request.params.name, caller);
      return { ...view(c), lag: await svc().lag(c, caller) };
    },
  );
}

/** The next batch, in any format. */
function batchReadRoute(app: App): void {
  const svc = () => app.tg.cursors;

  app.post(
    '/cursors/:name/read',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'The next batch after the committed position (the same batch until it is committed)',
        description: 'The batch token is in the `Topicgate-Batch` header (and `batch` in JSON). Commit it to move on.',
        params: CursorParams,
        querystring: BatchQuery,
        response: {
          ...ReadResponses,
          // The media type; another reader moved the cursor while the batch was prepared (TG_STALE_BATCH).
          ...errorResponses([
            ...NAMED,
            ...BODY_ERRORS,
            ...PLANNED,
            'TG_NOT_ACCEPTABLE',
            'TG_STALE_BATCH',
            'TG_SCHEMA_REGISTRY',
          ]),
        },
      },
    },
    async (request, reply) => {
      const media = request.readMediaType(request.query.format);
      const { cursor, pending, plan } = await svc().batch(
        request.params.name,
        request.query.limit,
        cursorCaller(request),
      );
      reply.header('Topicgate-Batch', pending.token);
      reply.header('Topicgate-Batch-Rows', String(pending.rows));
      const meta = {
        batch: pending.token,
        batchRows: pending.rows,
        from: showPosition(pending.from),
        to: showPosition(pending.to),
      };
      const topic = svc().definition(cursor).topic;
      const { compression } = request.query;
      return reply.sendPlan(plan, media, { paged: false, meta, topic, decode: true, compression });
    },
  );
}

/** Move the position: commit a batch, or seek. */
function positionRoutes(app: App): void {
  const svc = () => app.tg.cursors;

  app.post(
    '/cursors/:name/commit',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'Move the cursor to the end of a batch (committing twice is a no-op)',
        params: CursorParams,
        body: CommitBody,
        response: {
          200: CommitResult,
          // A token this service did not issue for this cursor (400), or not starting at the position (409).
          ...errorResponses([...NAMED, ...BODY_ERRORS, 'TG_BAD_BATCH', 'TG_STALE_BATCH']),
        },
      },
    },
    async (request) => {
      const r = await svc().commit(request.params.name, request.body.batch, cursorCaller(request));
      return { committed: r.committed, rows: r.rows, position: showPosition(r.position) };
    },
  );

  app.post(
    '/cursors/:name/seek',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'Move the cursor to earliest, latest or an instant',
        params: CursorParams,
        body: SeekBody,
        response: { 200: SeekResult, ...errorResponses([...NAMED, ...BODY_ERRORS, ...PLANNED, 'TG_BAD_TIME']) },
      },
    },
    async (request) => ({
      position: showPosition(await svc().seek(request.params.name, request.body.to, cursorCaller(request))),
    }),
  );
}

/** Delete a cursor; list its committed batches. */
function retirementRoutes(app: App): void {
  const svc = () => app.tg.cursors;

  app.delete(
    '/cursors/:name',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'Delete a cursor and its history',
        params: CursorParams,
        response: { 204: Type.Null(), ...errorResponses([...NAMED, ...BODY_ERRORS]) },
      },
    },
    async (request, reply) => {
      await svc().delete(request.params.name, cursorCaller(request));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/cursors/:name/history',
    {
      config: { data: true },
      schema: {
        tags: ['cursors'],
        summary: 'Batches committed, newest first',
        params: CursorParams,
        querystring: HistoryQuery,
        response: { 200: History, ...errorResponses(NAMED) },
      },
    },
    async (request) => {
      const entries = await svc().history(request.params.name, request.query.limit ?? 100, cursorCaller(request));
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

const cursorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this order: the OpenAPI document lists the routes as they are added.
  definitionRoutes(app);
  batchReadRoute(app);
  positionRoutes(app);
  retirementRoutes(app);
};

export default cursorRoutes;
