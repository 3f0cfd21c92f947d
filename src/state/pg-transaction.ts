/** One transaction on a pooled PostgreSQL connection, for every store of the state. */
import type pg from 'pg';
import type { PoolClient } from 'pg';

/** Runs `fn` between BEGIN and COMMIT (ROLLBACK when it throws); a connection that cannot roll back is closed. */
export async function pgTransaction<T>(pool: pg.Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        // A connection that cannot roll back is not given back to the pool.
        broken = e instanceof Error ? e : new Error(String(e));
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
