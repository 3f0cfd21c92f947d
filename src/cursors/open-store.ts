/**
 * Opens the cursor store a state URL names (TOPICGATE_STATE_URL) and creates its schema (state/open-state.ts):
 * `sqlite:<file>` / `sqlite::memory:` -> SqliteCursorStore, `postgres://...` / `postgresql://...` -> PostgresCursorStore.
 */
import { openState } from '../state/open-state.js';
import type { CursorStore } from './cursor-store.js';
import type { PostgresCursorStoreOptions } from './postgres-store.js';
import type { SqliteCursorStoreOptions } from './sqlite-store.js';

export interface OpenStoreOptions {
  sqlite?: SqliteCursorStoreOptions;
  postgres?: PostgresCursorStoreOptions;
}

export function openStore(stateUrl: string, opts: OpenStoreOptions = {}): Promise<CursorStore> {
  return openState<CursorStore>(stateUrl, {
    sqlite: async () => new (await import('./sqlite-store.js')).SqliteCursorStore(stateUrl, opts.sqlite),
    postgres: async () => new (await import('./postgres-store.js')).PostgresCursorStore(stateUrl, opts.postgres),
  });
}
