/**
 * Trino's own view of its queries, read over its REST API (`GET /v1/query`, `/v1/query/{id}`) instead of with a
 * query of system.runtime.queries: the same list (Trino's query tracker), without a query of its own for Trino to
 * analyse, plan, schedule and track. The tests poll it while they wait for a read to start or to end; as SQL, those
 * polls were two thirds of the test Trino's queries in a run of the suite (2,030 of 3,086 at its middle).
 */

/** One query as Trino lists it. */
export interface ListedQuery {
  id: string;
  state: string;
  user: string;
  source: string | undefined;
  query: string;
  /** Its error's name (USER_CANCELED, EXCEEDED_TIME_LIMIT ...), as system.runtime.queries.error_code says it. */
  error: string | null;
  created: string;
}

interface BasicQueryInfo {
  queryId: string;
  state: string;
  query: string;
  session: { user: string; source?: string };
  errorCode?: { name: string } | null;
  queryStats: { createTime: string };
}

async function get(server: string, path: string): Promise<Response> {
  return fetch(`${server.replace(/\/+$/, '')}${path}`, { headers: { 'X-Trino-User': 'test-observer' } });
}

function listed(q: BasicQueryInfo): ListedQuery {
  return {
    id: q.queryId,
    state: q.state,
    user: q.session.user,
    source: q.session.source,
    query: q.query,
    error: q.errorCode?.name ?? null,
    created: q.queryStats.createTime,
  };
}

/**
 * The queries Trino still lists in `state` (RUNNING, FINISHED ...; Trino filters them, a small answer). Each call has
 * Trino build the info of every query it keeps (some 10^3 in a run of the suite): poll it every 50 ms or slower.
 */
export async function listQueries(server: string, state: string): Promise<ListedQuery[]> {
  const res = await get(server, `/v1/query?state=${encodeURIComponent(state)}`);
  if (!res.ok) throw new Error(`Trino listed no queries: ${res.status} ${await res.text()}`);
  return ((await res.json()) as BasicQueryInfo[]).map(listed);
}

/** A query's state and error name; `undefined` state when Trino no longer knows it. */
export async function queryStatus(
  server: string,
  id: string,
): Promise<{ state: string | undefined; error: string | null }> {
  const res = await get(server, `/v1/query/${encodeURIComponent(id)}`);
  if (res.status === 404 || res.status === 410) return { state: undefined, error: null };
  if (!res.ok) throw new Error(`Trino has no info of query ${id}: ${res.status}`);
  const info = (await res.json()) as { state: string; errorCode?: { name: string } | null };
  return { state: info.state, error: info.errorCode?.name ?? null };
}
