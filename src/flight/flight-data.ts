/**
 * FlightData, the message DoGet sends per Arrow IPC message (Flight.proto: flight_descriptor = 1, data_header = 2,
 * app_metadata = 3, data_body = 1000), written by hand: it is the one message sent per record batch, and its body
 * is copied once into the frame. And the re-framing of an Arrow IPC stream into those messages: Flight carries each
 * IPC message's flatbuffer `Message` as `data_header` and its body as `data_body`, without the stream's continuation
 * marker and length prefix, and without the end-of-stream marker (the end of the gRPC stream is the end).
 */

/** The protobuf key of data_header (field 2, length-delimited). */
const HEADER_KEY = 0x12;
/** The protobuf key of data_body (field 1000, length-delimited): (1000 << 3) | 2 = 8002 as a varint. */
const BODY_KEY = [0xc2, 0x3e];

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
}

/** The FlightData message of one IPC message: its flatbuffer header and its body. */
export function encodeFlightData(header: Uint8Array, body: Uint8Array): Buffer {
  const size =
    1 + varintLength(header.length) + header.length + (body.length ? 2 + varintLength(body.length) + body.length : 0);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = HEADER_KEY;
  at = writeVarint(out, at, header.length);
  out.set(header, at);
  at += header.length;
  if (body.length) {
    out[at++] = BODY_KEY[0]!;
    out[at++] = BODY_KEY[1]!;
    at = writeVarint(out, at, body.length);
    out.set(body, at);
  }
  return out;
}

/**
 * The body length a flatbuffer `Message` (Arrow's Message.fbs) declares: field 3 (`bodyLength: long`) of the root
 * table, read through its vtable; 0 when the field is absent (its default).
 */
export function bodyLengthOf(message: Uint8Array): number {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const table = view.getUint32(0, true);
  const vtable = table - view.getInt32(table, true);
  const vtableSize = view.getUint16(vtable, true);
  const slot = 4 + 3 * 2;
  if (vtableSize <= slot) return 0;
  const offset = view.getUint16(vtable + slot, true);
  if (offset === 0) return 0;
  return Number(view.getBigInt64(table + offset, true));
}

/** One IPC message of a stream: its flatbuffer metadata and its body. */
export interface IpcMessage {
  header: Uint8Array;
  body: Uint8Array;
}

/**
 * Cuts an Arrow IPC stream (chunks as the encoder yields them, cut anywhere) into its messages. Each message is
 * `0xFFFFFFFF`, an int32 metadata length, the metadata (padded to 8 bytes), then the body of the length the
 * metadata declares; a length of 0 is the end-of-stream marker, which ends the messages.
 */
export async function* ipcMessages(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<IpcMessage> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    pending = pending.length
      ? Buffer.concat([pending, bytes])
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    for (;;) {
      if (pending.length - at < 8) break;
      const marker = pending.readUInt32LE(at);
      // A stream written before the continuation marker existed starts with the length; the encoder writes markers.
      const prefix = marker === 0xffffffff ? 8 : 4;
      const metaLength = prefix === 8 ? pending.readInt32LE(at + 4) : marker;
      if (metaLength === 0) return;
      if (pending.length - at < prefix + metaLength) break;
      const header = pending.subarray(at + prefix, at + prefix + metaLength);
      const bodyLength = bodyLengthOf(header);
      const end = at + prefix + metaLength + bodyLength;
      if (pending.length < end) break;
      yield { header, body: pending.subarray(at + prefix + metaLength, end) };
      at = end;
    }
    pending = pending.subarray(at);
  }
}
