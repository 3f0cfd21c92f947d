/**
 * Opens the cursor store a state URL names (TOPICGATE_STATE_URL) and creates its schema:
 * `sqlite:<file>` / `sqlite::memory:` -> SqliteCursorStore, `postgres://...` / `postgresql://...` -> PostgresCursorStore.
 * Each store module is loaded only when used, so a PostgreSQL deployment never loads the SQLite native module.
 */
import type { CursorStore } from './cursor-store.js';
import type { PostgresCursorStoreOptions } from './postgres-store.js';
import type { SqliteCursorStoreOptions } from './sqlite-store.js';

export interface OpenStoreOptions {
  sqlite?: SqliteCursorStoreOptions;
  postgres?: PostgresCursorStoreOptions;
}

export async function openStore(stateUrl: string, opts: OpenStoreOptions = {}): Promise<CursorStore> {
  let store: CursorStore;
  if (stateUrl.startsWith('sqlite:')) {
    const { SqliteCursorStore } = await import('./sqlite-store.js');
    store = new SqliteCursorStore(stateUrl, opts.sqlite);
  } else if (/^postgres(?:ql)?:\/\//.test(stateUrl)) {
    const { PostgresCursorStore } = await import('./postgres-store.js');
    store = new PostgresCursorStore(stateUrl, opts.postgres);
  } else {
    // The URL may hold a password: name only its scheme.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(stateUrl)?.[0] ?? '(none)';
    throw new Error(`unsupported state URL scheme ${scheme}: use sqlite:<file> or postgres://...`);
  }
  try {
    await store.init();
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}
