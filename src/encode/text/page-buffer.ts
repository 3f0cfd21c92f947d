import { Buffer } from 'node:buffer';

/** Free page buffers kept for reuse at most (a page is one Trino batch, typically 64 KB to 1 MB). */
const KEEP_FREE = 4;

/**
 * Collects one page of text output as UTF-8 bytes. Rows are written here as they are built: a page-long string
 * (a rope of every value) would survive several young-generation GCs and be promoted, which made GC dominate
 * the text encoders; bytes in a Buffer cost the GC nothing. Payload bytes can be copied in (or base64-decoded in)
 * without ever becoming a JS string.
 *
 * The value writers of this directory write into `bytes` at `end` themselves (after `ensure`), so that a value can
 * be decoded, checked and rewritten in place (varbinary-text.ts, csv-field.ts); nothing else should touch the two
 * fields.
 */
export class PageBuffer {
  /** The page so far: `bytes[0, end)`. Read and written in place by the value writers (after `ensure`). */
  bytes: Buffer;
  end = 0;
  /** `bytes` as a DataView, for writing constants four bytes at a time. */
  private view: DataView;
  /** Buffers whose pages were taken and may still be on their way out (only with `drained`). */
  private lent: Buffer[] = [];
  /** Buffers whose pages have left: written into again before a new one is allocated. */
  private free: Buffer[] = [];

  /**
   * `drained`, when given, tells whether every page taken so far has left the process (nothing of it still queued
   * or being written): from then on their buffers are reused for later pages instead of each page allocating its
   * own. Dead page buffers otherwise live outside V8's heap until its next full collection, tens of megabytes on a
   * long read. Without it, every page is a buffer of its own.
   */
  constructor(
    private readonly initialSize = 64 * 1024,
    private readonly drained?: () => boolean,
  ) {
    this.bytes = Buffer.allocUnsafe(initialSize);
    this.view = viewOf(this.bytes);
  }

  write(text: string): void {
    this.ensure(text.length * 3); // a UTF-16 code unit never takes more than 3 UTF-8 bytes
    this.end += this.bytes.write(text, this.end, 'utf8');
  }

  /** Writes text known to be ASCII (numbers, digits, fixed words): each UTF-16 unit is one byte. */
  writeAscii(text: string): void {
    const n = text.length;
    this.ensure(n);
    if (n > 24) {
      this.end += this.bytes.write(text, this.end, 'latin1');
      return;
    }
    const b = this.bytes;
    let e = this.end;
    for (let i = 0; i < n; i++) b[e++] = text.charCodeAt(i);
    this.end = e;
  }

  writeByte(c: number): void {
    if (this.end >= this.bytes.length) this.ensure(1);
    this.bytes[this.end++] = c;
  }

  writeBytes(bytes: Uint8Array): void {
    const n = bytes.length;
    this.ensure(n);
    if (n > 32) this.bytes.set(bytes, this.end);
    else {
      // Short constants (keys, separators): a loop is cheaper than a call to set().
      const b = this.bytes;
      let e = this.end;
      for (let i = 0; i < n; i++) b[e++] = bytes[i]!;
    }
    this.end += n;
  }

  /** Writes a constant (a key, a separator): four bytes at a time, cheaper than a byte loop or a call to set(). */
  writeConstant(c: ConstantBytes): void {
    const n = c.bytes.length;
    this.ensure(n);
    const e = this.end;
    const words = c.words;
    const view = this.view;
    for (let k = 0; k < words.length; k++) view.setUint32(e + 4 * k, words[k]!, true);
    const b = this.bytes;
    const src = c.bytes;
    for (let k = 4 * words.length; k < n; k++) b[e + k] = src[k]!;
    this.end = e + n;
  }

  /**
   * The bytes written so far (exactly; never uninitialized memory); the buffer starts empty again. The bytes stay
   * as they are until `drained` (if given) says they have left.
   */
  take(): Buffer {
    const out = this.bytes.subarray(0, this.end);
    const size = Math.max(this.initialSize, this.end);
    if (this.drained === undefined) this.bytes = Buffer.allocUnsafe(size);
    else {
      if (this.lent.length > 0 && this.drained()) {
        for (const b of this.lent) if (this.free.length < KEEP_FREE) this.free.push(b);
        this.lent.length = 0;
      }
      // A client that never lets the output drain: the oldest are forgotten (left to the GC), never piled up.
      if (this.lent.length === KEEP_FREE) this.lent.shift();
      this.lent.push(this.bytes);
      this.bytes = this.reused(size) ?? Buffer.allocUnsafe(size);
    }
    this.view = viewOf(this.bytes);
    this.end = 0;
    return out;
  }

  /** A free buffer of at least `size` bytes (the largest first), or undefined. */
  private reused(size: number): Buffer | undefined {
    let best = -1;
    for (let i = 0; i < this.free.length; i++)
      if (this.free[i]!.length >= size && (best < 0 || this.free[i]!.length > this.free[best]!.length)) best = i;
    if (best < 0) return undefined;
    const [b] = this.free.splice(best, 1);
    return b;
  }

  /** Makes room for `more` bytes after `end` (the bytes before `end` are kept; `bytes` may be replaced). */
  ensure(more: number): void {
    if (this.end + more <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.end + more, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.end);
    this.bytes = next;
    this.view = viewOf(next);
  }
}

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Bytes written into many pages (a column's key, a separator), with their first `4 * floor(n / 4)` as words. */
export class ConstantBytes {
  /** The bytes four at a time, little-endian. */
  readonly words: Uint32Array;

  constructor(readonly bytes: Uint8Array) {
    this.words = new Uint32Array(bytes.length >>> 2);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let k = 0; k < this.words.length; k++) this.words[k] = view.getUint32(4 * k, true);
  }
}
