import type { ResultColumn, ResultStream } from '../../src/core/result-stream.js';

/** A ResultStream over rows held in memory, recording how far it has been pulled (for tests and fakes). */
export interface InMemoryResult extends ResultStream {
  /** Batches handed out so far. */
  readonly pulled: number;
  /** True once the consumer closed the batches early (as when a client disconnects). */
  readonly closed: boolean;
}

/**
 * A fake Trino result: yields `batches` one by one, then throws `failWith` if given (a query failing
 * mid-stream). Each batch is handed out only when asked for, like trino-client's page iteration.
 */
export function inMemoryResult(
  columns: readonly ResultColumn[],
  batches: readonly (readonly (readonly unknown[])[])[],
  options: { failWith?: unknown; queryId?: string } = {},
): InMemoryResult {
  const state = { pulled: 0, closed: false };
  async function* generate(): AsyncGenerator<readonly (readonly unknown[])[]> {
    let finished = false;
    try {
      for (const batch of batches) {
        await Promise.resolve(); // a page fetch is always asynchronous
        state.pulled++;
        yield batch;
      }
      finished = true;
      if (options.failWith !== undefined) throw options.failWith;
    } finally {
      if (!finished) state.closed = true;
    }
  }
  return {
    queryId: options.queryId ?? '20261101_000000_00000_fake0',
    columns,
    batches: generate(),
    get pulled() {
      return state.pulled;
    },
    get closed() {
      return state.closed;
    },
  };
}
