/**
 * Opens a store of the state a URL names and creates its schema: the store the URL's scheme picks, initialised, or
 * closed again when it cannot be. Each feature passes its two stores as loaders, so a module is loaded only when
 * used (a PostgreSQL deployment never loads the SQLite native module).
 */
import { isPostgresUrl, isSqliteUrl, unsupportedStateUrl } from './state-url.js';

/** What every store of the state has: its schema made on first use, and an end. */
export interface StateStore {
  init(): Promise<void>;
  close(): Promise<void>;
}

/** A feature's store on each database, made (not yet initialised) on demand. */
export interface StoreLoaders<S extends StateStore> {
  sqlite(): Promise<S>;
  postgres(): Promise<S>;
}

/**
 * `make` (a store's schema, made on first use) run once: its promise is shared by every call until it fails, and a
 * failure is tried again by the next call.
 */
export function madeOnce(make: () => Promise<void>): () => Promise<void> {
  let made: Promise<void> | undefined;
  return () =>
    (made ??= make().catch((err: unknown) => {
      made = undefined;
      throw err;
    }));
}

export async function openState<S extends StateStore>(stateUrl: string, load: StoreLoaders<S>): Promise<S> {
  let store: S;
  if (isSqliteUrl(stateUrl)) store = await load.sqlite();
  else if (isPostgresUrl(stateUrl)) store = await load.postgres();
  else throw unsupportedStateUrl(stateUrl);
  try {
    await store.init();
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}
