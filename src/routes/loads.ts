/** Loads run by Trino: topic into table (API.md "Loads run by Trino: topic into table"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ErrorCode } from '../core/errors.js';
import { loadName } from '../loads/load-keys.js';
import type { LoadRecord, LoadRun } from '../loads/load-store.js';
import {
  ACCESS_ERRORS,
  BODY_ERRORS,
  FILTER_ERRORS,
  PATH_ERRORS,
  TRINO_ERRORS,
  errorResponses,
} from './error-schema.js';
import { callerFor } from '../http/request-stateful-caller.js';
import { LoadBody, LoadParams, LoadView, RunBody, RunResult, Runs, RunsQuery, type RunView } from './loads-schema.js';

/** Every load route: a name refused, the load's topic out of sight, the store unreachable. */
const LOAD_ROUTE = [
  ...PATH_ERRORS,
  ...ACCESS_ERRORS,
  'TG_TOPIC_NOT_FOUND',
  'TG_STATE_UNAVAILABLE',
] as const satisfies readonly ErrorCode[];

/**
 * A route on an existing load: no load of that name (or not the caller's); an admin naming a load that several
 * principals it administers have.
 */
const NAMED = [...LOAD_ROUTE, 'TG_LOAD_NOT_FOUND', 'TG_LOAD_CONFLICT'] as const satisfies readonly ErrorCode[];

/**
 * Planning the load's read (query/planner.ts): its topic (gone, not a topic table, Avro payloads), its where and
 * select, the guardrail, and Trino (the catalog, the lag count, the run's statements).
 */
const PLANNED = [
  'TG_TOPIC_NOT_FOUND',
  'TG_NOT_LOADABLE',
  ...FILTER_ERRORS,
  'TG_TIME_BOUND_REQUIRED',
  ...TRINO_ERRORS,
] as const satisfies readonly ErrorCode[];

/** Trino timestamp text as an ISO instant. */
const iso = (ts: string | null) => (ts === null ? null : `${ts.replace(' ', 'T')}Z`);

function runView(r: LoadRun): RunView {
  const ms = r.finishedAt === null ? null : Date.parse(r.finishedAt) - Date.parse(r.startedAt);
  return {
    run: r.runId,
    window: { from: iso(r.from), until: iso(r.until)! },
    rows: r.rows,
    queryIds: r.queryIds,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    durationMs: ms,
    outcome: r.outcome,
    error: r.error,
  };
}

function view(l: LoadRecord): LoadView {
  return {
    name: loadName(l.name),
    definition: JSON.parse(l.definition) as unknown,
    position: iso(l.position),
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  };
}

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** Defining a load, and reading it back with its lag and last runs. */
function definitionRoutes(app: App): void {
  const svc = () => app.tg.loads;
  const schema = { tags: ['loads'], params: LoadParams };

  app.put(
    '/loads/:name',
    {
      config: { data: true },
      schema: {
        ...schema,
        summary: 'Define a load of a topic into a table (the same definition again is a no-op)',
        body: LoadBody,
        response: {
          200: LoadView,
          201: LoadView,
          ...errorResponses([
            ...LOAD_ROUTE,
            ...BODY_ERRORS,
            ...PLANNED,
            'TG_BAD_TIME',
            'TG_BAD_TARGET',
            'TG_LOAD_CONFLICT',
            'TG_LOAD_TARGET_TAKEN',
          ]),
        },
      },
    },
    async (request, reply) => {
      const { created, record } = await svc().create(request.params.name, request.body, callerFor(request, 'loads'));
      return reply.status(created ? 201 : 200).send(view(record));
    },
  );

  app.get(
    '/loads/:name',
    {
      config: { data: true },
      schema: {
        ...schema,
        summary: 'A load: definition, position, lag and last runs',
        response: { 200: LoadView, ...errorResponses([...NAMED, ...PLANNED]) },
      },
    },
    async (request) => {
      const caller = callerFor(request, 'loads');
      const l = await svc().get(request.params.name, caller);
      const runs = await svc().history(l, 5);
      return { ...view(l), lag: await svc().lag(l, caller), runs: runs.map(runView) };
    },
  );
}

/** Running a load up to a time. */
function runRoute(app: App): void {
  const svc = () => app.tg.loads;
  const schema = { tags: ['loads'], params: LoadParams };

  app.post(
    '/loads/:name/runs',
    {
      config: { data: true },
      // A scheduler's `curl -X POST` sends no body: it means `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        ...schema,
        summary: 'Run the next settled window into the target (one run of a load at a time)',
        description:
          'Deletes the window from the target, inserts it from the topic (in Trino: no event passes through the gateway), then commits the position. A run that fails anywhere is simply run again.',
        body: RunBody,
        response: {
          200: RunResult,
          ...errorResponses([
            ...NAMED,
            ...BODY_ERRORS,
            ...PLANNED,
            'TG_BAD_TIME',
            'TG_BAD_TARGET',
            'TG_LOAD_RUNNING',
            'TG_LOAD_TARGET_TAKEN',
          ]),
        },
      },
    },
    async (request) => {
      const r = await svc().run(request.params.name, request.body.until, callerFor(request, 'loads'));
      request.audit.rows = r.run?.rows ?? 0;
      return {
        outcome: r.outcome,
        run: r.run && runView(r.run),
        window: { from: iso(r.from), until: iso(r.until) },
        rows: r.run?.rows ?? 0,
        position: iso(r.until),
        lag: r.lag,
      };
    },
  );
}

/** A load's runs, and deleting it. */
function historyRoutes(app: App): void {
  const svc = () => app.tg.loads;
  const schema = { tags: ['loads'], params: LoadParams };

  app.get(
    '/loads/:name/runs',
    {
      config: { data: true },
      schema: {
        ...schema,
        summary: "A load's runs, newest first",
        querystring: RunsQuery,
        response: { 200: Runs, ...errorResponses(NAMED) },
      },
    },
    async (request) => {
      const runs = await svc().runs(request.params.name, request.query.limit ?? 100, callerFor(request, 'loads'));
      return { runs: runs.map(runView) };
    },
  );

  app.delete(
    '/loads/:name',
    {
      config: { data: true },
      schema: {
        ...schema,
        summary: 'Delete a load and its runs (the target table stays)',
        response: { 204: Type.Null(), ...errorResponses([...NAMED, ...BODY_ERRORS]) },
      },
    },
    async (request, reply) => {
      await svc().delete(request.params.name, callerFor(request, 'loads'));
      return reply.status(204).send(null);
    },
  );
}

const loadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // In this order: the OpenAPI document lists the routes as they are added.
  definitionRoutes(app);
  runRoute(app);
  historyRoutes(app);
};

export default loadRoutes;
