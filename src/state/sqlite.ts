/** The state's SQLite file, as every store on SQLite opens it (one gateway instance, one file). */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The state file opened for a store (parent directories created): WAL, so readers never block the writer; a write
 * waits `busyTimeoutMs` for another connection's lock; FULL sync, so a committed position survives a power loss
 * (else a batch could be delivered again).
 */
export function openSqlite(file: string, busyTimeoutMs: number): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
  const db = new Database(file, { timeout: busyTimeoutMs });
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
