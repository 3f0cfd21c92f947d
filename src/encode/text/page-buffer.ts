import { Buffer } from 'node:buffer';

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

  constructor(private readonly initialSize = 64 * 1024) {
    this.bytes = Buffer.allocUnsafe(initialSize);
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

  /** The bytes written so far (exactly; never uninitialized memory); the buffer starts empty again. */
  take(): Buffer {
    const out = this.bytes.subarray(0, this.end);
    this.bytes = Buffer.allocUnsafe(Math.max(this.initialSize, this.end));
    this.end = 0;
    return out;
  }

  /** Makes room for `more` bytes after `end` (the bytes before `end` are kept; `bytes` may be replaced). */
  ensure(more: number): void {
    if (this.end + more <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.end + more, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.end);
    this.bytes = next;
  }
}
