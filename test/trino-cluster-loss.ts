/**
 * What the worker-loss tests of the trino-cluster file read through: a gateway over the lake's Iceberg copy of the
 * topics (any worker reads any split), with one API key per kind of work (a page, `limit=all`, a session stream, a
 * follow, a load run). Queries run as the caller (TOPICGATE_TRINO_IMPERSONATE), so each kind's queries are told
 * apart by their Trino user in system.runtime.queries: a kind is cut exactly when one of its queries failed. Loads
 * write into `sink`, the cluster's second Iceberg catalog: never the topics' catalog (loads/load-target.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { apiKeyHash } from '../src/access/api-keys.js';
import { loadConfig } from '../src/server/load-config.js';
import { startServer } from '../src/server.js';
import type { HttpTrino } from '../src/trino/http-trino.js';
import { SINK_CATALOG } from '../scripts/local-lake.js';
import { untilTrue } from './follow-client.js';
import { completeRows, type Outcome } from './trino-cluster-reads.js';
import { CLUSTER_CLICKS_ROWS, SHARED_SCHEMA } from './trino-cluster-services.js';

export const KINDS = ['page', 'limit=all', 'session stream', 'follow', 'load'] as const;
export type Kind = (typeof KINDS)[number];
export type ReadKind = Exclude<Kind, 'load'>;

/** A kind's principal, which is its queries' Trino user. */
export const principalOf = (k: Kind) => `loss-${k.replace(/\W+/g, '-')}`;
const keyOf = (k: Kind) => `key-${principalOf(k)}-`.padEnd(40, '0');
/** The credentials of a kind's requests. */
export const as = (k: Kind): Record<string, string> => ({ 'x-api-key': keyOf(k) });

export interface LakeGateway {
  app: FastifyInstance;
  url: string;
}

/** A gateway on the cluster serving the lake's copy, listening (the loss tests' reads are real HTTP responses). */
export async function startLakeGateway(trinoUrl: string): Promise<LakeGateway> {
  const file = join(mkdtempSync(join(tmpdir(), 'topicgate-cluster-loss-')), 'topicgate.yaml');
  const apiKeys = KINDS.map((k) => ({ principal: principalOf(k), sha256: apiKeyHash(keyOf(k)), roles: ['loss'] }));
  const access = [{ roles: ['loss'], topics: ['*'], actions: ['read', 'loads'] }];
  writeFileSync(file, stringify({ auth: { apiKeys }, access, loads: { targets: [`${SINK_CATALOG}.*`] } }));
  return startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl,
      TOPICGATE_CATALOG: 'lake',
      TOPICGATE_SCHEMAS: SHARED_SCHEMA,
      TOPICGATE_CONFIG: file,
      TOPICGATE_TRINO_IMPERSONATE: 'true',
      TOPICGATE_CURSOR_SECRET: 'cluster-loss-cursor-secret-0123456789abcdef',
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_MAX_LIMIT: String(CLUSTER_CLICKS_ROWS),
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      // The direct protocol: a result flows from the workers' output buffers as the client reads. Spooled, the
      // workers finish writing segments to storage without waiting for the client, and a worker lost after that
      // takes nothing with it (docs/trino.md, "Trino as a cluster").
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_TRINO_MIN_WORKERS: '1',
    }),
  );
}

export interface KindQuery {
  id: string;
  state: string;
  error: string | null;
  query: string;
}

/**
 * The queries a kind's principal ran in Trino (the tests' own system-table queries run as another user), but those
 * in `skip` (of an earlier test, or an earlier run on a cluster that outlives runs).
 */
export async function kindQueries(trino: HttpTrino, k: Kind, skip?: ReadonlySet<string>): Promise<KindQuery[]> {
  const { rows } = await trino.all(
    `SELECT query_id, state, error_code, query FROM system.runtime.queries WHERE "user" = '${principalOf(k)}' ` +
      "AND query NOT LIKE '%system.runtime%'",
  );
  const qs = rows.map(([id, state, error, query]) => ({
    id: String(id),
    state: String(state),
    error: (error as string | null) ?? null,
    query: String(query),
  }));
  return qs.filter((q) => !skip?.has(q.id));
}

/** The ids of every kind's queries so far. */
export async function queriesSoFar(trino: HttpTrino): Promise<Set<string>> {
  return new Set((await Promise.all(KINDS.map((k) => kindQueries(trino, k)))).flat().map((q) => q.id));
}

/** Waits until every query of the kind has ended; those that failed of themselves (not cancelled by the gateway). */
export async function failedQueries(
  trino: HttpTrino,
  k: Kind,
  skip: ReadonlySet<string>,
  timeoutMs = 120_000,
): Promise<KindQuery[]> {
  let qs: KindQuery[] = [];
  const ended = ['FINISHED', 'FAILED'];
  await untilTrue(
    async () => (qs = await kindQueries(trino, k, skip)).every((q) => ended.includes(q.state)),
    timeoutMs,
    `the queries of ${k} ended in Trino`,
  );
  return qs.filter((q) => q.state === 'FAILED' && q.error !== 'USER_CANCELED');
}

/**
 * The workers holding unfinished tasks of each kind's queries (the load's INSERT alone for the load), but queries in
 * `skip`: one query of Trino's tables, so that a poll is quick beside a statement that lasts a second or two.
 */
export async function liveByKind(trino: HttpTrino, skip: ReadonlySet<string>): Promise<Map<Kind, Set<string>>> {
  const users = KINDS.map((k) => `'${principalOf(k)}'`).join(', ');
  const { rows } = await trino.all(
    'SELECT DISTINCT q.query_id, q."user", t.node_id, strpos(q.query, \'INSERT INTO\') > 0 ' +
      'FROM system.runtime.tasks t JOIN system.runtime.queries q ON t.query_id = q.query_id ' +
      `WHERE q."user" IN (${users}) AND t.state NOT IN ('FINISHED', 'CANCELED', 'ABORTED', 'FAILED')`,
  );
  const live = new Map<Kind, Set<string>>(KINDS.map((k) => [k, new Set()]));
  for (const [id, user, node, insert] of rows) {
    const k = KINDS.find((x) => principalOf(x) === user)!;
    if (!skip.has(String(id)) && (k !== 'load' || insert === true)) live.get(k)!.add(String(node));
  }
  return live;
}

/**
 * The worker to kill: one holding tasks of the load's INSERT and of the follow, and of the most other kinds; none
 * while there is no such worker.
 */
export function victimOf<W extends { nodeId: string }>(live: Map<Kind, Set<string>>, workers: W[]): W | undefined {
  const kinds = (w: W) => [...live.values()].filter((nodes) => nodes.has(w.nodeId)).length;
  const both = workers.filter((w) => live.get('load')!.has(w.nodeId) && live.get('follow')!.has(w.nodeId));
  return both.sort((a, b) => kinds(b) - kinds(a))[0];
}

/** Rows of a body that says it is whole (NDJSON, or a follow's events up to `until`), else undefined. */
export function wholeRows(k: ReadKind, o: Outcome): number | undefined {
  if (k !== 'follow') return completeRows(o);
  const { events } = sseBlocks(o.body.toString());
  const failed = events.some((e) => e.event === 'error');
  return o.status === 200 && o.complete && !failed ? events.length : undefined;
}

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** The whole blocks of an event-stream body (a block cut mid-way is no event), and the last id they set. */
export function sseBlocks(text: string): { events: SseEvent[]; lastId?: string } {
  const blocks = text.split('\n\n').slice(0, -1);
  let lastId: string | undefined;
  const events: SseEvent[] = [];
  for (const b of blocks) {
    const e: SseEvent = {};
    for (const line of b.split('\n')) {
      if (line.startsWith('id: ')) lastId = e.id = line.slice(4);
      else if (line.startsWith('event: ')) e.event = line.slice(7);
      else if (line.startsWith('data: ')) e.data = line.slice(6);
    }
    if (e.data !== undefined) events.push(e);
  }
  return { events, lastId };
}

/** The loss tests' load: the lake's clicks into a schema of this run in `sink` (gone with the S3 server). */
export const LOSS_LOAD = { name: 'clicks-to-sink', schema: `loss_${Date.now().toString(36)}` };
const target = () => `${SINK_CATALOG}.${LOSS_LOAD.schema}.clicks`;

export interface LoadRunView {
  outcome: string;
  rows: number | null;
  error: string | null;
  queryIds: string[];
}

async function loadCall(g: LakeGateway, method: string, path: string, body?: object) {
  const headers = { ...as('load'), ...(body && { 'content-type': 'application/json' }) };
  const res = await fetch(`${g.url}/v1/loads/${LOSS_LOAD.name}${path}`, {
    method,
    headers,
    ...(body && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Defines the load (its target made on its first run); the status. */
export async function defineLoad(g: LakeGateway): Promise<number> {
  return (await loadCall(g, 'PUT', '', { topic: 'clicks', target: target() })).status;
}

/** Runs the load's next window up to `until` (ISO). */
export function runLoad(g: LakeGateway, until: string) {
  return loadCall(g, 'POST', '/runs', { until });
}

/** The load's newest run as its record says. */
export async function lastRun(g: LakeGateway): Promise<LoadRunView> {
  const { body } = await loadCall(g, 'GET', '/runs?limit=1');
  return (body.runs as LoadRunView[])[0]!;
}

/** The load's INSERT among its queries in Trino. */
export const isInsert = (q: KindQuery) => /\bINSERT INTO\b/.test(q.query);

/**
 * The target against the topic's events before `until` (ISO), asked of Trino directly: events missing from the
 * target and rows of the target that are no event, each with its multiplicity (EXCEPT ALL), and the events.
 */
export async function compareTarget(trino: HttpTrino, until: string) {
  const ts = until.replace('T', ' ').replace('Z', '');
  const topic =
    `SELECT key, value, CAST(timestamp_broker AS timestamp(6)) FROM lake."${SHARED_SCHEMA}".clicks ` +
    `WHERE timestamp_broker < TIMESTAMP '${ts}'`;
  const landed = `SELECT key, value, timestamp_broker FROM ${target()}`;
  const count = async (s: string) => Number((await trino.all(`SELECT count(*) FROM (${s})`)).rows[0]![0]);
  return {
    missing: await count(`${topic} EXCEPT ALL ${landed}`),
    extra: await count(`${landed} EXCEPT ALL ${topic}`),
    events: await count(topic),
    rows: await count(landed),
  };
}

/** Drops what the loss tests' load made in `sink` (a cluster that outlives the run keeps its warehouse). */
export async function dropLoadTarget(trino: HttpTrino): Promise<void> {
  await trino.all(`DROP TABLE IF EXISTS ${target()}`);
  await trino.all(`DROP SCHEMA IF EXISTS ${SINK_CATALOG}.${LOSS_LOAD.schema}`);
}
