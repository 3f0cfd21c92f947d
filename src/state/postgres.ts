/**
 * What every store of the state on PostgreSQL shares: its pools, the quoting of its names, and the lock around its
 * DDL. The stores (cursors, loads, shared quotas) keep their own tables and statements.
 */
import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import type { StateDialect } from './dialect.js';
import { pgTransaction } from './pg-transaction.js';

/**
 * Quotes a PostgreSQL identifier: `"name"`, embedded quotes doubled. Only the gateway's own names reach it (its
 * fixed table names and the configured schema, checked by checkSchemaName), so it refuses nothing. Trino's
 * identifiers are quoted by query/sql/sql-text.ts quoteIdent: the same doubling, but for names a request or a
 * topic brings, which it refuses with a 400 when Trino could not carry them. Two rooms, two contracts: the state
 * does not import the query compiler, nor the compiler the state.
 */
export function quotePgIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A schema name PostgreSQL keeps as given: 1-63 bytes (longer ones are truncated), without NUL. */
export function checkSchemaName(schema: string): void {
  if (schema === '' || schema.includes('\0') || Buffer.byteLength(schema) > 63) {
    throw new Error(`PostgreSQL schema name ${JSON.stringify(schema)} must be 1-63 bytes, without NUL`);
  }
}

/** The PostgreSQL spelling of a store's tables in `schema`. */
export function postgresDialect(schema: string): StateDialect {
  return { text: 'text', int: 'bigint', table: (name) => `${quotePgIdent(schema)}.${quotePgIdent(name)}` };
}

/** `$1, $2, ...` for n values. */
export const placeholders = (n: number): string => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');

/**
 * A pool of connections to the state database. An idle connection that is lost is dropped by the pool; without a
 * listener its error would crash the process.
 */
export function statePool(config: PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => {});
  return pool;
}

/**
 * First key of the advisory lock around every store's DDL (the second is a hash of the schema name): one lock for
 * a schema, since the stores of several instances may make its objects, and the schema itself, at once.
 */
export const DDL_LOCK_KEY = 0x74676375; // 'tgcu'

/**
 * `fn`'s DDL in one transaction holding the schema's DDL lock: concurrent CREATE ... IF NOT EXISTS of one object
 * can still fail on a catalog unique index, so instances starting at once take turns.
 */
export function ddlTransaction<T>(pool: pg.Pool, schema: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  return pgTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1::int4, hashtext($2))', [DDL_LOCK_KEY, schema]);
    return fn(client);
  });
}

/** Makes `schema` when it is missing (inside ddlTransaction). */
export async function createSchemaIfMissing(client: PoolClient, schema: string): Promise<void> {
  const ns = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  // Checked first: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists.
  if (ns.rowCount === 0) await client.query(`CREATE SCHEMA ${quotePgIdent(schema)}`);
}
