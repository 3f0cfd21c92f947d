/**
 * A cut response is a broken HTTP transfer (docs/reading.md, "Complete or visibly not"): when an encoder throws after
 * its body has started (having yielded its in-body cut mark), the error ends the stream and fastify destroys the
 * response, so the chunked body is never terminated. Destroying drops bytes still queued on the socket, though, and
 * the cut mark is the last chunk written: this waits until it has left (the write callback of an empty chunk runs
 * once everything written before it is flushed), bounded for a client that stopped reading, then rethrows.
 */
import type { ServerResponse } from 'node:http';

/** At most this long for the cut mark to reach a client before the transfer is aborted anyway. */
const FLUSH_MS = 5000;

/** Passes `chunks` through; on an error after the first chunk, waits for `res` to flush before rethrowing it. */
export async function* flushThenAbort<T>(
  chunks: AsyncIterable<T>,
  res: ServerResponse,
): AsyncGenerator<T, void, undefined> {
  let started = false;
  try {
    for await (const chunk of chunks) {
      started = true;
      yield chunk;
    }
  } catch (err) {
    // Before the first chunk nothing was written: the error becomes a normal error response.
    if (started) await flushed(res);
    throw err;
  }
}

function flushed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || !res.headersSent || res.writableEnded) return resolve();
    const timer = setTimeout(resolve, FLUSH_MS);
    res.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
