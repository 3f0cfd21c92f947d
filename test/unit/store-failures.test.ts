/** The cursor store unreachable is a 503 TG_STATE_UNAVAILABLE (state/store-failures.ts); a defect stays a defect. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import type { CursorStore } from '../../src/cursors/cursor-store.js';
import { guardStore, storeTimeouts, storeUnreachable } from '../../src/state/store-failures.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storeUnreachable', () => {
  it.each<[string, unknown, boolean]>([
    ['connection refused', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), true],
    ['connection reset', coded('ECONNRESET'), true],
    ['pg connect timeout (no code)', new Error('timeout exceeded when trying to connect'), true],
    ['pg read timeout (no code)', new Error('Query read timeout'), true],
    ['connection terminated (no code)', new Error('Connection terminated unexpectedly'), true],
    ['SQLSTATE 57014 statement_timeout', coded('57014', 'canceling statement due to statement timeout'), true],
    ['SQLSTATE 57P01 admin shutdown', coded('57P01'), true],
    ['SQLSTATE 08006 connection failure', coded('08006'), true],
    ['SQLSTATE 53300 too many connections', coded('53300'), true],
    ['SQLSTATE 42P01 undefined table (a defect)', coded('42P01'), false],
    ['SQLSTATE 23505 unique violation', coded('23505'), false],
    ['a TypeError (a bad argument)', new TypeError('a cursor name must be a non-empty string'), false],
    ['an ApiError', new ApiError('TG_CURSOR_NOT_FOUND', 'no cursor'), false],
    ['not an Error', 'text', false],
    ['SQLite busy', coded('SQLITE_BUSY', 'database is locked'), true],
    ['SQLite file unopenable', coded('SQLITE_CANTOPEN', 'unable to open database file'), true],
    ['SQLite SQL error (a defect)', coded('SQLITE_ERROR', 'no such table: cursors'), false],
    ['SQLite constraint (a defect)', coded('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed'), false],
    [
      'an Error without a code that is not a connection failure (a defect)',
      new Error('undefined is not a function'),
      false,
    ],
  ])('%s -> %s', (_label, err, expected) => {
    expect(storeUnreachable(err)).toBe(expected);
  });
});

describe('guardStore', () => {
  const failing = (err: unknown) =>
    ({
      get: async () => Promise.reject(err),
      ping: async () => Promise.reject(err),
      close: async () => undefined,
    }) as unknown as CursorStore;

  it('an unreachable store: 503 TG_STATE_UNAVAILABLE with Retry-After, no address in the message', async () => {
    const err = await guardStore(failing(coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:5432')))
      .get('x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const api = err as ApiError;
    expect([api.code, api.status, api.retryAfterS, api.message]).toEqual([
      'TG_STATE_UNAVAILABLE',
      503,
      5,
      'the cursor store cannot be reached; retry later',
    ]);
  });

  it('a defect passes through unchanged', async () => {
    const defect = coded('42P01', 'relation does not exist');
    await expect(guardStore(failing(defect)).ping()).rejects.toBe(defect);
  });

  it('answers pass through', async () => {
    const store = { get: async (name: string) => ({ name }) } as unknown as CursorStore;
    expect(await guardStore(store).get('a')).toEqual({ name: 'a' });
  });

  it('every wait on PostgreSQL is bounded by the setting', () => {
    expect(storeTimeouts(2000)).toMatchObject({
      connectionTimeoutMillis: 2000,
      statement_timeout: 2000,
      query_timeout: 3000,
    });
  });
});
