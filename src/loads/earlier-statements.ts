/**
 * Statements of earlier runs of a load that Trino is still running. A gateway killed in the middle of a run leaves
 * its statement going on in Trino (Trino gives up a query whose client stopped asking only minutes later): an INSERT
 * that commits after the next run's DELETE would land its window twice, a DELETE would take it away. So before a
 * run starts, every statement that carries the load's marker and that Trino has not finished is killed, and the run
 * waits until Trino lists none (a statement killed while it commits has then either committed or not, and the run's
 * DELETE covers both).
 */
import { ApiError } from '../core/errors.js';
import { compileKillQuery, compileUnfinished } from '../query/sql/compile-load.js';
import type { QueryOptions, TrinoPort } from '../trino/trino-port.js';

/** Kills the unfinished statements marked `marker` and waits until they have ended; resolves with how many. */
export async function endEarlierStatements(
  trino: TrinoPort,
  marker: string,
  opts: QueryOptions & { waitMs: number; pollMs?: number },
): Promise<number> {
  const { waitMs, pollMs = 250, ...query } = opts;
  const killed = new Set<string>();
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { rows } = await trino.all(compileUnfinished(marker), query);
    const ids = rows.map((r) => String(r[0]));
    if (ids.length === 0) return killed.size;
    if (Date.now() > deadline) {
      throw new ApiError(
        'TG_LOAD_RUNNING',
        `a statement of an earlier run of this load is still ending in Trino (${ids.join(', ')}); try again`,
        { queryIds: ids },
      );
    }
    for (const id of ids.filter((i) => !killed.has(i))) {
      killed.add(id);
      // It may end by itself meanwhile: Trino then refuses to kill it, which is what was wanted.
      await trino.all(compileKillQuery(id, 'a later run of this topicgate load replaces it'), query).catch(() => {});
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
