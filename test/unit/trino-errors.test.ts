/**
 * The one table from Trino failures to API errors (API.md "Errors"; STYLE.md habits 5 and 10): by errorName
 * first, then errorType; 5xx bodies carry nothing of Trino's message.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_CATALOG, errorBody, type ErrorCode } from '../../src/core/errors.js';
import {
  QueryCancelledError,
  TrinoQueryError,
  TrinoRefusedError,
  TrinoUnavailableError,
  isTrinoFailure,
  logFailure,
  toApiError,
} from '../../src/trino/trino-errors.js';
import { HttpStatusError, unavailable } from '../../src/trino/wire-failures.js';

/** Text a client must never see in a 5xx: Trino's own message, with the kind of internals it carries. */
const SECRET = "line 1:15: Table 'vast.secret_schema.payroll' does not exist (io.trino.spi.TrinoException at 10.0.0.7)";

function trinoError(errorName: string, errorType: string, message = SECRET): TrinoQueryError {
  return new TrinoQueryError({ message, errorCode: 1, errorName, errorType }, '20261130_080000_00001_abcde');
}

describe('toApiError over Trino in-band errors', () => {
  it.each<[string, string, ErrorCode, number, number | undefined]>([
    // errorName decides first.
    ['EXCEEDED_TIME_LIMIT', 'INSUFFICIENT_RESOURCES', 'TG_TIMEOUT', 504, undefined],
    ['EXCEEDED_CPU_LIMIT', 'INSUFFICIENT_RESOURCES', 'TG_TIMEOUT', 504, undefined],
    ['QUERY_QUEUE_FULL', 'INSUFFICIENT_RESOURCES', 'TG_TOO_MANY_REQUESTS', 429, 5],
    ['QUERY_REJECTED', 'USER_ERROR', 'TG_TOO_MANY_REQUESTS', 429, 5],
    ['SERVER_STARTING_UP', 'INTERNAL_ERROR', 'TG_TRINO_UNAVAILABLE', 503, 5],
    ['SERVER_SHUTTING_DOWN', 'INTERNAL_ERROR', 'TG_TRINO_UNAVAILABLE', 503, 5],
    ['NO_NODES_AVAILABLE', 'INTERNAL_ERROR', 'TG_TRINO_UNAVAILABLE', 503, 5],
    ['EXCEEDED_GLOBAL_MEMORY_LIMIT', 'INSUFFICIENT_RESOURCES', 'TG_TOO_EXPENSIVE', 422, undefined],
    ['EXCEEDED_LOCAL_MEMORY_LIMIT', 'INSUFFICIENT_RESOURCES', 'TG_TOO_EXPENSIVE', 422, undefined],
    ['EXCEEDED_SCAN_LIMIT', 'INSUFFICIENT_RESOURCES', 'TG_TOO_EXPENSIVE', 422, undefined],
    ['INVALID_CAST_ARGUMENT', 'USER_ERROR', 'TG_BAD_VALUE', 400, undefined],
    ['NUMERIC_VALUE_OUT_OF_RANGE', 'USER_ERROR', 'TG_BAD_VALUE', 400, undefined],
    ['DIVISION_BY_ZERO', 'USER_ERROR', 'TG_BAD_VALUE', 400, undefined],
    // The name wins over the type even when the type alone would say something else.
    ['EXCEEDED_TIME_LIMIT', 'USER_ERROR', 'TG_TIMEOUT', 504, undefined],
    ['INVALID_CAST_ARGUMENT', 'INTERNAL_ERROR', 'TG_BAD_VALUE', 400, undefined],
    // Otherwise the errorType decides: the gateway wrote the SQL, so a user error is a failed query.
    // SQL Trino cannot parse is a gateway defect; a statement past Trino's own size limits is too expensive.
    ['SYNTAX_ERROR', 'USER_ERROR', 'TG_INTERNAL', 500, undefined],
    ['STACK_OVERFLOW', 'USER_ERROR', 'TG_TOO_EXPENSIVE', 422, undefined],
    ['QUERY_TEXT_TOO_LARGE', 'USER_ERROR', 'TG_TOO_EXPENSIVE', 422, undefined],
    ['QUERY_EXCEEDED_COMPILER_LIMIT', 'USER_ERROR', 'TG_TOO_EXPENSIVE', 422, undefined],
    ['TABLE_NOT_FOUND', 'USER_ERROR', 'TG_TRINO_FAILED', 502, undefined],
    ['INVALID_FUNCTION_ARGUMENT', 'USER_ERROR', 'TG_TRINO_FAILED', 502, undefined],
    ['GENERIC_INTERNAL_ERROR', 'INTERNAL_ERROR', 'TG_TRINO_FAILED', 502, undefined],
    ['CLUSTER_OUT_OF_MEMORY', 'INSUFFICIENT_RESOURCES', 'TG_TOO_MANY_REQUESTS', 429, 5],
    ['GENERIC_INSUFFICIENT_RESOURCES', 'INSUFFICIENT_RESOURCES', 'TG_TRINO_UNAVAILABLE', 503, 5],
    ['HIVE_METASTORE_ERROR', 'EXTERNAL', 'TG_TRINO_FAILED', 502, undefined],
    // Unknown names and types are a failed query, never a crash or a 500.
    ['SOMETHING_NEW', 'BRAND_NEW_TYPE', 'TG_TRINO_FAILED', 502, undefined],
    ['', '', 'TG_TRINO_FAILED', 502, undefined],
    ['SOMETHING_NEW', 'user_error', 'TG_TRINO_FAILED', 502, undefined],
    // Names that happen to be Object.prototype members must not be looked up on the prototype.
    ['constructor', 'USER_ERROR', 'TG_TRINO_FAILED', 502, undefined],
    ['SOMETHING_NEW', 'toString', 'TG_TRINO_FAILED', 502, undefined],
  ])('%s / %s -> %s %i', (errorName, errorType, code, status, retryAfterS) => {
    const err = toApiError(trinoError(errorName, errorType));
    expect(err).toBeInstanceOf(ApiError);
    expect({ code: err.code, status: err.status, retryAfterS: err.retryAfterS }).toEqual({ code, status, retryAfterS });
    expect(err.status).toBe(ERROR_CATALOG[code].status);
    expect(err.queryId).toBe('20261130_080000_00001_abcde');
    expect(err.details).toEqual({ errorName, errorType });
    if (status >= 500) {
      // No internals: none of Trino's message, in the message or anywhere in the body.
      expect(err.message).not.toContain('payroll');
      expect(JSON.stringify(errorBody(err))).not.toMatch(/payroll|secret_schema|io\.trino|10\.0\.0\.7|line 1:15/);
    }
  });

  it('a bad value (400) tells the client what Trino could not evaluate', () => {
    const err = toApiError(trinoError('INVALID_CAST_ARGUMENT', 'USER_ERROR', "Cannot cast 'abc' to INT"));
    expect(err.message).toBe("a value could not be evaluated: Cannot cast 'abc' to INT");
  });

  it('the body has the one error shape', () => {
    expect(errorBody(toApiError(trinoError('TABLE_NOT_FOUND', 'USER_ERROR')))).toEqual({
      error: {
        code: 'TG_TRINO_FAILED',
        message: expect.any(String),
        status: 502,
        details: { errorName: 'TABLE_NOT_FOUND', errorType: 'USER_ERROR' },
        queryId: '20261130_080000_00001_abcde',
      },
    });
  });
});

describe('isTrinoFailure', () => {
  it("is true for each of the Trino port's failures and false for a fault of the gateway's code", () => {
    for (const err of [
      trinoError('REMOTE_HOST_GONE', 'INTERNAL_ERROR'),
      new TrinoUnavailableError('Trino answered HTTP 503', 503),
      new TrinoRefusedError(403),
      new QueryCancelledError('deadline', undefined),
    ]) {
      expect(isTrinoFailure(err), err.name).toBe(true);
    }
    for (const err of [new TypeError('x is undefined'), new Error('store down'), 'text', undefined]) {
      expect(isTrinoFailure(err)).toBe(false);
    }
  });
});

describe('toApiError over the other failures of the Trino port', () => {
  it.each([
    ['connection refused', new TrinoUnavailableError('Trino is not reachable (ECONNREFUSED 10.0.0.7:8080)')],
    ['HTTP 502 from a proxy', new TrinoUnavailableError('Trino answered HTTP 502', 502)],
    ['HTTP 503', new TrinoUnavailableError('Trino answered HTTP 503', 503)],
  ])('TrinoUnavailableError (%s) -> 503 with Retry-After, no address', (_label, cause) => {
    const err = toApiError(cause);
    expect({ code: err.code, status: err.status, retryAfterS: err.retryAfterS, message: err.message }).toEqual({
      code: 'TG_TRINO_UNAVAILABLE',
      status: 503,
      retryAfterS: 5,
      message: 'Trino is not reachable',
    });
    expect(JSON.stringify(errorBody(err))).not.toMatch(/10\.0\.0\.7|ECONNREFUSED|HTTP 50/);
  });

  it('the gateway deadline -> 504 TG_TIMEOUT with the query id', () => {
    const err = toApiError(new QueryCancelledError('deadline', 'q_deadline'));
    expect({ code: err.code, status: err.status, queryId: err.queryId }).toEqual({
      code: 'TG_TIMEOUT',
      status: 504,
      queryId: 'q_deadline',
    });
  });

  it.each<[string, unknown]>([
    ['a plain Error', new Error('ENOENT: /etc/topicgate/secret.yaml at Object.openSync')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'secret')")],
    ['a string', 'secret'],
    ['undefined', undefined],
    ['null', null],
    ['an error-like object', { message: 'secret', code: 'TG_BAD_VALUE', status: 400 }],
  ])('%s -> 500 TG_INTERNAL "internal error"', (_label, cause) => {
    const err = toApiError(cause);
    expect(errorBody(err)).toEqual({ error: { code: 'TG_INTERNAL', message: 'internal error', status: 500 } });
    expect(err.retryAfterS).toBeUndefined();
  });

  it('an ApiError passes through unchanged', () => {
    const original = new ApiError('TG_UNKNOWN_COLUMN', 'no column "x"', { column: 'x' });
    expect(toApiError(original)).toBe(original);
  });
});

describe('Trino refusing: access control and the gateway credentials', () => {
  it('PERMISSION_DENIED -> 403 TG_FORBIDDEN naming what was denied, first line only', () => {
    const err = toApiError(
      trinoError(
        'PERMISSION_DENIED',
        'USER_ERROR',
        'Access Denied: Cannot select from columns [key, value] in table or view vast.demo.payroll\n\tat io.trino.spi',
      ),
    );
    expect([err.code, err.status, err.message]).toEqual([
      'TG_FORBIDDEN',
      403,
      'Trino denied the query: Cannot select from columns [key, value] in table or view vast.demo.payroll',
    ]);
    expect(err.details).toEqual({ errorName: 'PERMISSION_DENIED', errorType: 'USER_ERROR' });
    expect(err.retryAfterS).toBeUndefined();
  });

  it('a long denial is bounded', () => {
    const err = toApiError(trinoError('PERMISSION_DENIED', 'USER_ERROR', `Access Denied: ${'x'.repeat(1000)}`));
    expect(err.message).toBe(`Trino denied the query: ${'x'.repeat(300)}...`);
  });

  it("HTTP 401 -> 502 TG_TRINO_AUTH: the gateway's credentials, never 'not reachable', no retry", () => {
    const err = toApiError(new TrinoRefusedError(401));
    expect(errorBody(err)).toEqual({
      error: { code: 'TG_TRINO_AUTH', message: "the gateway's credentials were not accepted by Trino", status: 502 },
    });
    expect(err.retryAfterS).toBeUndefined();
  });

  it('HTTP 403 -> 403 TG_FORBIDDEN', () => {
    const err = toApiError(new TrinoRefusedError(403));
    expect([err.code, err.status, err.message]).toEqual(['TG_FORBIDDEN', 403, 'Trino refused the request']);
  });

  it.each([
    [401, TrinoRefusedError],
    [403, TrinoRefusedError],
    [500, TrinoUnavailableError],
    [503, TrinoUnavailableError],
  ] as const)('an HTTP %i answer reaches callers as %o', (status, type) => {
    expect(unavailable(new HttpStatusError(status))).toBeInstanceOf(type);
  });
});

describe('logFailure', () => {
  const capture = () => {
    const lines: [string, unknown, string][] = [];
    const at = (level: string) => (obj: unknown, msg: string) => void lines.push([level, obj, msg]);
    const log = { error: at('error'), info: at('info') } as unknown as Parameters<typeof logFailure>[0];
    return { log, lines };
  };

  it("the gateway's credentials refused: one loud error line naming the settings to check, no secret", () => {
    const { log, lines } = capture();
    logFailure(log, toApiError(new TrinoRefusedError(401)), new TrinoRefusedError(401));
    expect(lines).toHaveLength(1);
    expect(lines[0]![0]).toBe('error');
    expect(lines[0]![2]).toMatch(/^TRINO REFUSED THE GATEWAY CREDENTIALS: check TOPICGATE_TRINO_USER and /);
  });

  it('a 403 is a refusal (info), a 5xx an error', () => {
    const { log, lines } = capture();
    logFailure(log, toApiError(new TrinoRefusedError(403)), undefined);
    logFailure(log, toApiError(trinoError('TABLE_NOT_FOUND', 'USER_ERROR')), undefined);
    expect(lines.map((l) => [l[0], l[2]])).toEqual([
      ['info', 'request refused'],
      ['error', 'request failed'],
    ]);
  });

  it('SQL Trino cannot parse: a 500 with no internals, logged loudly as a gateway defect with its query id', () => {
    const { log, lines } = capture();
    const failure = trinoError('SYNTAX_ERROR', 'USER_ERROR', "line 1:15: mismatched input 'payroll'");
    const err = toApiError(failure);
    expect({ code: err.code, status: err.status, message: err.message }).toEqual({
      code: 'TG_INTERNAL',
      status: 500,
      message: 'internal error',
    });
    logFailure(log, err, failure);
    expect(lines).toHaveLength(1);
    expect(lines[0]![0]).toBe('error');
    expect(lines[0]![2]).toBe('GATEWAY DEFECT: Trino could not parse SQL the gateway wrote');
    expect(lines[0]![1]).toMatchObject({ queryId: '20261130_080000_00001_abcde', errorName: 'SYNTAX_ERROR' });
  });

  it("a statement past Trino's size limits names the limit it hit", () => {
    const err = toApiError(trinoError('QUERY_TEXT_TOO_LARGE', 'USER_ERROR'));
    expect(err.message).toMatch(/beyond Trino's limit QUERY_TEXT_TOO_LARGE/);
  });
});
