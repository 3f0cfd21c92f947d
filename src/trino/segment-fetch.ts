/**
 * GET and acknowledge spooled segments. Their URIs point at the coordinator, a worker, or the storage itself
 * (a pre-signed URL, by Trino's retrieval mode); the coordinator may redirect to a worker or to storage. The
 * segment's own headers travel with every hop; the connection's credentials never do (Trino serves /v1/spooled
 * without authentication, its identifiers being encrypted with the protocol's shared secret; a pre-signed URL
 * needs none; and credentials must not reach storage). A failed GET is retried like a nextUri GET (429/502/503/504, a reset,
 * a time-out), and so is a body shorter or longer than the segment's `segmentSize` (a cut transfer).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpReply } from './http-transport.js';
import type { SpooledSegment } from './result-reader.js';
import type { Exchange, TrinoConnection } from './trino-connection.js';
import { TrinoUnavailableError } from './trino-errors.js';
import { backoffMs, HttpStatusError, retryable, unavailable } from './wire-failures.js';
import { segmentBuffers } from './buffer-pool.js';

const MAX_REDIRECTS = 3;
const ACK_TIMEOUT_MS = 5_000;

/** A segment body of the wrong length: cut on the way, worth another try. */
class SegmentSizeError extends Error {
  readonly code = 'ECONNRESET';
  constructor(got: number, expected: number) {
    super(`spooled segment of ${got} bytes, ${expected} expected`);
  }
}

export class SegmentFetch {
  constructor(private readonly connection: TrinoConnection) {}

  /** The segment's bytes; rejects with the signal's reason on abort, TrinoUnavailableError otherwise. */
  async bytes(segment: SpooledSegment, signal: AbortSignal): Promise<Buffer> {
    const { retries, baseMs, maxMs } = this.connection.retry;
    const expected = Number(segment.metadata.segmentSize);
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = await this.get(segment.uri, segment, signal, undefined, true);
        if (Number.isFinite(expected) && reply.body.length !== expected) {
          segmentBuffers.give(reply.body);
          throw new SegmentSizeError(reply.body.length, expected);
        }
        return reply.body;
      } catch (err) {
        if (signal.aborted) throw err;
        if (attempt >= retries || !retryable(err)) {
          throw err instanceof SegmentSizeError
            ? new TrinoUnavailableError(`Trino sent a ${err.message}`)
            : unavailable(err);
        }
        await sleep(backoffMs(attempt, { baseMs, maxMs }), undefined, { signal });
      }
    }
  }

  /** Acknowledges a segment (Trino deletes it); best effort, never throws. */
  async acknowledge(segment: SpooledSegment): Promise<void> {
    if (!segment.ackUri) return;
    try {
      await this.get(segment.ackUri, segment, undefined, ACK_TIMEOUT_MS);
    } catch {
      // Trino's spooling manager deletes unacknowledged segments itself once they expire.
    }
  }

  /** One GET with the segment's headers, following redirects; a non-2xx answer rejects with HttpStatusError. */
  private async get(
    uri: string,
    segment: SpooledSegment,
    signal?: AbortSignal,
    timeoutMs?: number,
    pooled = false,
  ): Promise<HttpReply> {
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries(segment.headers ?? {})) headers[name] = values.join(', ');
    let url = this.connection.resolve(uri);
    for (let hops = 0; ; hops++) {
      const request: Exchange = { method: 'GET', url, headers, signal, timeoutMs };
      // A segment's body is read into a reused buffer, given back once decoded (segment-decoder.ts).
      if (pooled) request.pool = segmentBuffers;
      const reply = await this.connection.anonymous(request);
      const location = reply.headers.location;
      if (reply.status >= 300 && reply.status < 400 && location && hops < MAX_REDIRECTS) {
        url = new URL(location, url);
        continue;
      }
      if (reply.status < 200 || reply.status >= 300) throw new HttpStatusError(reply.status);
      return reply;
    }
  }
}
