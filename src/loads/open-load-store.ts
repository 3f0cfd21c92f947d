/**
 * Opens the load store beside the cursor store a state URL names (TOPICGATE_STATE_URL): `sqlite:<file>` ->
 * SqliteLoadStore on the same file, `postgres://...` -> PostgresLoadStore in the same database and schema. Each
 * module is loaded only when used, as the cursor stores are.
 */
import type { PoolConfig } from 'pg';
import type { LoadStore } from './load-store.js';

export async function openLoadStore(
  stateUrl: string,
  opts: { schema?: string; pool?: Omit<PoolConfig, 'connectionString'> } = {},
): Promise<LoadStore> {
  let store: LoadStore;
  if (stateUrl.startsWith('sqlite:')) {
    const { SqliteLoadStore } = await import('./sqlite-load-store.js');
    store = new SqliteLoadStore(stateUrl);
  } else {
    const { PostgresLoadStore } = await import('./postgres-load-store.js');
    store = new PostgresLoadStore(stateUrl, opts.schema, opts.pool);
  }
  try {
    await store.init();
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}
