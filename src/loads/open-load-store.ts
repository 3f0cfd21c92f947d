/**
 * Opens the load store beside the cursor store a state URL names (TOPICGATE_STATE_URL) and creates its schema
 * (state/open-state.ts): `sqlite:<file>` -> SqliteLoadStore on the same file, `postgres://...` -> PostgresLoadStore
 * in the same database and schema.
 */
import type { PoolConfig } from 'pg';
import { openState } from '../state/open-state.js';
import type { LoadStore } from './load-store.js';

export function openLoadStore(
  stateUrl: string,
  opts: { schema?: string; pool?: Omit<PoolConfig, 'connectionString'> } = {},
): Promise<LoadStore> {
  return openState<LoadStore>(stateUrl, {
    sqlite: async () => new (await import('./sqlite-load-store.js')).SqliteLoadStore(stateUrl),
    postgres: async () =>
      new (await import('./postgres-load-store.js')).PostgresLoadStore(stateUrl, opts.schema, opts.pool),
  });
}
