/**
 * A load's claim on its target table (API.md "Loads run by Trino"): a target belongs to the load that claimed it
 * when it was defined, and only that load's runs write it. Defining a load claims its target in the load store,
 * in the transaction that stores the load: a target another load holds, or an existing table that no load of this
 * owner claimed, is a 409 TG_LOAD_TARGET_TAKEN, the same answer whoever asks. Each run checks again that the load
 * still holds the claim, and that the table it finds is one its load made: a table someone made meanwhile is
 * refused too.
 */
import { ApiError } from '../core/errors.js';
import { compileTargetExists } from '../query/sql/compile-load.js';
import type { TargetNode } from '../query/tree/nodes.js';
import type { QueryOptions, TrinoPort } from '../trino/trino-port.js';
import type { LoadRecord, LoadStore } from './load-store.js';
import { targetText } from './load-target.js';

/** The 409 of a target that is not the load's to write; it says nothing of whose it is. */
export function targetTaken(target: string): ApiError {
  return new ApiError(
    'TG_LOAD_TARGET_TAKEN',
    `target ${target} is taken: it is another load's, or a table that no load of this principal made; name a new table`,
    { target },
  );
}

/** Whether Trino has the target's schema and table (as the user of `opts` sees them). */
export async function targetState(
  trino: TrinoPort,
  t: TargetNode,
  opts: QueryOptions,
): Promise<{ schema: boolean; table: boolean }> {
  const { rows } = await trino.all(compileTargetExists(t), { ...opts, clientTags: ['catalog'] });
  const [schemas, tables] = (rows[0] ?? [0, 0]).map(Number) as [number, number];
  return { schema: schemas > 0, table: tables > 0 };
}

/** Stores a new load with its target's claim (the existing load of that key as it is); a 409 if the target is taken. */
export async function createClaimed(
  store: LoadStore,
  record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>,
  t: TargetNode,
  trino: TrinoPort,
): Promise<{ created: boolean; record: LoadRecord }> {
  const { table } = await targetState(trino, t, {});
  const made = await store.create(record, { target: targetText(t), tableExists: table });
  if ('taken' in made) throw targetTaken(targetText(t));
  return made;
}

/** Before a run writes: the load must hold its target's claim, and a table that exists must be one its load made. */
export async function checkClaim(store: LoadStore, load: LoadRecord, t: TargetNode, exists: boolean): Promise<void> {
  const target = targetText(t);
  const claim = await store.claimOf(target);
  if (claim?.load !== load.name || (exists && !claim.created)) throw targetTaken(target);
}
