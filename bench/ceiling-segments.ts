/**
 * The ceiling client's spooled segments: each fetched (inline: decoded from base64; spooled: GET with the
 * segment's headers), decompressed, acknowledged (Trino may then delete it), and counted by its metadata's
 * `rowsCount`; its rows are never parsed. Like the gateway, up to WINDOW segments are fetched at once while the
 * next pages are asked for. zstd is @foxglove/wasm-zstd's public API (the WebAssembly zstd the gateway uses; it
 * decompresses into a new Buffer, dropped at once); a segment without `uncompressedSize` was left uncompressed by
 * Trino.
 */
import { decompress, isLoaded } from '@foxglove/wasm-zstd';
import { exchange } from './ceiling-http.js';
import type { SegmentInfo } from './ceiling-page.js';

/** The gateway's default number of segments fetched at once. */
const WINDOW = 4;

export class SegmentReader {
  private readonly inflight = new Set<Promise<void>>();
  private readonly acks: Promise<void>[] = [];
  private rows = 0;
  private failure: unknown;

  constructor(private readonly server: string) {}

  /** Starts reading a segment once fewer than WINDOW are being read; rejects with an earlier one's failure. */
  async add(encoding: string, segment: SegmentInfo): Promise<void> {
    while (this.inflight.size >= WINDOW) await Promise.race(this.inflight);
    if (this.failure) throw this.failure;
    const read: Promise<void> = this.read(encoding, segment)
      .then(
        (rows) => void (this.rows += rows),
        (err: unknown) => void (this.failure ??= err),
      )
      .finally(() => this.inflight.delete(read));
    this.inflight.add(read);
  }

  /** The rows of every segment added, once all are read and acknowledged. */
  async done(): Promise<number> {
    await Promise.all(this.inflight);
    await Promise.all(this.acks);
    if (this.failure) throw this.failure;
    return this.rows;
  }

  private async read(encoding: string, segment: SegmentInfo): Promise<number> {
    const { segmentSize, uncompressedSize, rowsCount } = segment.metadata;
    if (rowsCount === undefined) throw new Error('a spooled segment without rowsCount');
    const bytes = segment.type === 'inline' ? Buffer.from(segment.data!, 'base64') : await this.fetch(segment);
    if (bytes.length !== Number(segmentSize))
      throw new Error(`a spooled segment of ${bytes.length} bytes, ${segmentSize} expected`);
    if (uncompressedSize !== undefined) {
      if (encoding !== 'json+zstd') throw new Error(`the ceiling client does not decompress ${encoding}`);
      await isLoaded;
      const plain = decompress(bytes, Number(uncompressedSize));
      if (plain.length !== Number(uncompressedSize)) throw new Error('a spooled segment that does not decompress');
    }
    if (segment.ackUri) this.acks.push(this.acknowledge(segment.ackUri, segment));
    return rowsCount;
  }

  private segmentHeaders(segment: SegmentInfo): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries(segment.headers ?? {})) headers[name] = values.join(', ');
    return headers;
  }

  private async fetch(segment: SegmentInfo): Promise<Buffer> {
    return (await exchange('GET', new URL(segment.uri!, this.server), this.segmentHeaders(segment))).body;
  }

  /**
   * Once the segment is decompressed, as the gateway does once its rows are read; not waited for by the next
   * segment, and a failure is ignored (Trino deletes unacknowledged segments itself when they expire).
   */
  private async acknowledge(ackUri: string, segment: SegmentInfo): Promise<void> {
    await exchange('GET', new URL(ackUri, this.server), this.segmentHeaders(segment)).catch(() => undefined);
  }
}
