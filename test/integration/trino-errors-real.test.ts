/** Real Trino failures map to the error codes the table in src/trino/trino-errors.ts gives. */
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/core/errors.js';
import { TrinoQueryError, toApiError } from '../../src/trino/trino-errors.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';

describe('real Trino failures map as the table says', () => {
  const t = '"vast"."demo|kafka_topics"';
  it.each<[string, string, number | undefined, string, ErrorCode]>([
    ['a bad cast', "SELECT CAST('abc' AS integer)", undefined, 'INVALID_CAST_ARGUMENT', 'TG_BAD_VALUE'],
    ['a division by zero', 'SELECT 1/0', undefined, 'DIVISION_BY_ZERO', 'TG_BAD_VALUE'],
    [
      'an out-of-range number',
      'SELECT CAST(2147483648 AS integer)',
      undefined,
      'NUMERIC_VALUE_OUT_OF_RANGE',
      'TG_BAD_VALUE',
    ],
    ['a missing table', `SELECT * FROM ${t}.payroll`, undefined, 'TABLE_NOT_FOUND', 'TG_TRINO_FAILED'],
    ['a syntax error', 'SELEC 1', undefined, 'SYNTAX_ERROR', 'TG_INTERNAL'],
    [
      'the time limit',
      `SELECT count(*) FROM ${t}.orders a CROSS JOIN ${t}.orders b CROSS JOIN ${t}.orders c`,
      1_000,
      'EXCEEDED_TIME_LIMIT',
      'TG_TIMEOUT',
    ],
  ])('%s -> %s -> %s', async (_label, sql, timeoutMs, errorName, code) => {
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const failure = await trino.all(sql, timeoutMs ? { timeoutMs } : {}).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(TrinoQueryError);
    expect((failure as TrinoQueryError).info.errorName).toBe(errorName);
    const err = toApiError(failure);
    expect(err.code).toBe(code);
    expect(err.queryId).toMatch(/^\d{8}_\d{6}_\d{5}_\w{5}$/);
    if (err.status >= 500) expect(err.message).not.toContain((failure as TrinoQueryError).info.message);
  });
});
