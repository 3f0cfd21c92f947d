/**
 * Reads the row count from a Parquet file's footer (the Thrift compact-protocol `FileMetaData` before the last 8
 * bytes: its length, then `PAR1`). The Parquet encoder checks it against the rows it handed to the writer before
 * it sends the footer, because parquet-wasm's streaming writer drops a batch it fails to write and still closes
 * the file: without this check such a file would look complete.
 * Format: https://github.com/apache/parquet-format (FileMetaData: 1 version i32, 2 schema list, 3 num_rows i64);
 * Thrift compact protocol: https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md
 */

const MAGIC = 0x31524150; // "PAR1", little-endian
const STOP = 0;
const TRUE = 1;
const FALSE = 2;
const BYTE = 3;
const I16 = 4;
const I32 = 5;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

class CompactReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw new RangeError('Parquet footer ends early');
    return this.bytes[this.at++]!;
  }

  varint(): bigint {
    let out = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      out |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return out;
    }
    throw new RangeError('Parquet footer: varint too long');
  }

  zigzag(): bigint {
    const n = this.varint();
    return (n >> 1n) ^ -(n & 1n);
  }

  skipValue(type: number): void {
    switch (type) {
      case TRUE:
      case FALSE:
        return; // a struct field's boolean is in its header (list elements are read with `skipElement`)
      case BYTE:
        this.at += 1;
        return;
      case I16:
      case I32:
      case I64:
        this.varint();
        return;
      case DOUBLE:
        this.at += 8;
        return;
      case BINARY: {
        const length = Number(this.varint()); // read before `this.at` (`this.at += varint()` would lose its bytes)
        this.at += length;
        return;
      }
      case LIST:
      case SET: {
        const head = this.byte();
        const size = head >> 4 === 15 ? Number(this.varint()) : head >> 4;
        for (let i = 0; i < size; i++) this.skipElement(head & 15);
        return;
      }
      case MAP: {
        const size = Number(this.varint());
        if (size === 0) return;
        const kinds = this.byte();
        for (let i = 0; i < size; i++) {
          this.skipElement(kinds >> 4);
          this.skipElement(kinds & 15);
        }
        return;
      }
      case STRUCT:
        for (let field = this.fieldHeader(0); field.type !== STOP; field = this.fieldHeader(field.id)) {
          this.skipValue(field.type);
        }
        return;
      default:
        throw new RangeError(`Parquet footer: unknown Thrift type ${type}`);
    }
  }

  /** A collection element: booleans take one byte there. */
  private skipElement(type: number): void {
    if (type === TRUE || type === FALSE) this.at += 1;
    else this.skipValue(type);
  }

  fieldHeader(lastId: number): { id: number; type: number } {
    const head = this.byte();
    if (head === STOP) return { id: 0, type: STOP };
    const delta = head >> 4;
    return { id: delta === 0 ? Number(this.zigzag()) : lastId + delta, type: head & 15 };
  }
}

/** The `num_rows` of a whole Parquet file's footer, given the file's last bytes (at least the whole footer). */
export function parquetFooterRows(tail: Uint8Array): bigint {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  if (tail.byteLength < 12 || view.getUint32(tail.byteLength - 4, true) !== MAGIC) {
    throw new RangeError('Parquet file does not end with PAR1');
  }
  const length = view.getUint32(tail.byteLength - 8, true);
  if (length > tail.byteLength - 8) throw new RangeError('Parquet footer longer than the bytes given');
  const reader = new CompactReader(tail.subarray(tail.byteLength - 8 - length, tail.byteLength - 8));
  for (let field = reader.fieldHeader(0); field.type !== STOP; field = reader.fieldHeader(field.id)) {
    if (field.id === 3 && field.type === I64) return reader.zigzag();
    reader.skipValue(field.type);
  }
  throw new RangeError('Parquet footer has no num_rows');
}
