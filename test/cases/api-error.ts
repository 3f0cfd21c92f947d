/** The one way unit tests catch a refusal: the ApiError a call throws, or a failed test when it throws none. */
import { ApiError } from '../../src/core/errors.js';

/** The ApiError `f` throws; anything else thrown, or nothing, fails the test. */
export function apiError(f: () => unknown): ApiError {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw new Error(`expected an ApiError, got ${String(err)}`);
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

/** The ApiError `promise` rejects with; a fulfilled promise or another error fails the test. */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => {
      throw new Error('expected an ApiError, the promise fulfilled');
    },
    (e: unknown) => e,
  );
  if (err instanceof ApiError) return err;
  throw new Error(`expected an ApiError, got ${String(err)}`);
}

/** A refusal as code, status and message, for tables of expected refusals. */
export function refusal(f: () => unknown): [code: string, status: number, message: string] {
  const err = apiError(f);
  return [err.code, err.status, err.message];
}
