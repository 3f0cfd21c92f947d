/**
 * A store of the state unreachable (down, partitioned, too slow) is a 503 TG_STATE_UNAVAILABLE with Retry-After,
 * not a 500 and not a hang: the PostgreSQL pool bounds connecting and each statement (storeTimeouts below), and
 * every store call that fails for want of the store is reported as such. A failure that is the gateway's own (a bad
 * argument, an SQL error) stays what it is.
 */
import type { PoolConfig } from 'pg';
import { ApiError } from '../core/errors.js';

/** Seconds a client is asked to wait before trying a route that needs the state again. */
export const STATE_RETRY_AFTER_S = 5;

/**
 * Pool settings that bound every wait on PostgreSQL by `timeoutMs`: connecting, the server's statement_timeout,
 * and the client's own read timeout a little later (a partitioned server never answers at all).
 */
export function storeTimeouts(timeoutMs: number): Omit<PoolConfig, 'connectionString'> {
  return {
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    lock_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    idle_in_transaction_session_timeout: timeoutMs * 2,
    keepAlive: true,
  };
}

// SQLSTATE classes of an unreachable or failing server: connection exception, insufficient resources, operator
// intervention (shutdown, query canceled by statement_timeout), system error.
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);

/** Whether a store failure means the store cannot be reached (rather than a defect of the gateway). */
export function storeUnreachable(err: unknown): boolean {
  if (err instanceof ApiError || err instanceof TypeError) return false;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  if (typeof code === 'string') return SOCKET_CODES.has(code) || SQLITE_UNAVAILABLE.test(code);
  // The pg client's own failures carry no code: a connection or read timeout, a connection terminated.
  return err instanceof Error && PG_CLIENT_UNAVAILABLE.test(err.message);
}

// Node's socket errors: the server is not there, or the network between is not.
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// SQLite: the file busy, locked, unreadable or unopenable; any other SQLITE_* code is a defect of the gateway.
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL)/;
const PG_CLIENT_UNAVAILABLE = /connection|timeout|terminated/i;

/**
 * `err` as a 503 TG_STATE_UNAVAILABLE when it means the store cannot be reached (naming `what` the store holds),
 * else `err` itself.
 */
export function stateUnavailable(err: unknown, what = 'the cursor store'): unknown {
  if (!storeUnreachable(err)) return err;
  return new ApiError(
    'TG_STATE_UNAVAILABLE',
    `${what} cannot be reached; retry later`,
    undefined,
    undefined,
    STATE_RETRY_AFTER_S,
  );
}

/** The store (the cursor store, the load store beside it) with every failure to reach it a TG_STATE_UNAVAILABLE. */
export function guardStore<T extends object>(store: T, what?: string): T {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function' || key === 'close') return value;
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((err: unknown) => {
          throw stateUnavailable(err, what);
        });
    },
  });
}
