/**
 * What the trino-cluster tests ask of Trino and of a read: the nodes that ran a query's tasks (Trino's
 * system.runtime.tasks), the gateway's queries, and a read taken to its end or to where it was cut.
 */
import http from 'node:http';
import type { HttpTrino } from '../src/trino/http-trino.js';
import { untilTrue } from './follow-client.js';

const quoted = (ids: string[]) => ids.map((id) => `'${id.replace(/\W/g, '')}'`).join(', ');

/** The nodes that ran tasks of these queries (Trino keeps a task's info a minute: task.info.max-age). */
export async function taskNodes(trino: HttpTrino, queryIds: string[], liveOnly = false): Promise<Set<string>> {
  const live = liveOnly ? " AND state NOT IN ('FINISHED', 'CANCELED', 'ABORTED', 'FAILED')" : '';
  const { rows } = await trino.all(
    `SELECT DISTINCT node_id FROM system.runtime.tasks WHERE query_id IN (${quoted(queryIds)})${live}`,
  );
  return new Set(rows.map((r) => String(r[0])));
}

/** The ids of the gateway's queries naming `table` (its reads, not the tests' system-table queries). */
export async function gatewayQueries(trino: HttpTrino, table: string, states?: string[]): Promise<string[]> {
  const state = states ? ` AND state IN (${quoted(states)})` : '';
  const { rows } = await trino.all(
    `SELECT query_id FROM system.runtime.queries WHERE source = 'topicgate' AND query LIKE '%${table}%' ` +
      `AND query NOT LIKE '%system.runtime%'${state}`,
  );
  return rows.map((r) => String(r[0]));
}

/** Waits for a running query of the gateway naming `table` that is not among `known`, and adds it there. */
export async function newQuery(trino: HttpTrino, table: string, known: Set<string>): Promise<string> {
  let id: string | undefined;
  await untilTrue(
    async () => {
      id = (await gatewayQueries(trino, table, ['RUNNING', 'FINISHING'])).find((q) => !known.has(q));
      return id !== undefined;
    },
    60_000,
    'the read has a running query',
  );
  known.add(id!);
  return id!;
}

export interface Outcome {
  status: number;
  body: Buffer;
  /** The transfer ended properly (a chunked body cut without its last chunk did not). */
  complete: boolean;
}

/** GETs `url` (with `headers`) to its end, or to where its transfer stopped. */
export function readAll(url: string, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { 'accept-encoding': 'identity', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('error', () => undefined); // `aborted`: res.complete says so
        res.once('close', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), complete: res.complete }),
        );
      })
      .on('error', reject);
  });
}

/** Rows of a complete NDJSON body (a 200 ending with the empty line), or undefined for a cut or failed one. */
export function completeRows(o: Outcome): number | undefined {
  const text = o.body.toString();
  if (o.status !== 200 || !o.complete || !text.endsWith('\n\n')) return undefined;
  return text.split('\n').length - 2;
}
