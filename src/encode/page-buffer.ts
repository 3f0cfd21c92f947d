import { Buffer } from 'node:buffer';

/**
 * Collects one page of text output as UTF-8 bytes. Rows are written here as they are built: a page-long string
 * (a rope of every value) would survive several young-generation GCs and be promoted, which made GC dominate
 * the text encoders; bytes in a Buffer cost the GC nothing. Payload bytes can be copied in without ever
 * becoming a JS string.
 */
export class PageBuffer {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private end = 0;

  write(text: string): void {
    this.ensure(text.length * 3); // a UTF-16 code unit never takes more than 3 UTF-8 bytes
    this.end += this.bytes.write(text, this.end, 'utf8');
  }

  writeBytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.bytes.set(bytes, this.end);
    this.end += bytes.length;
  }

  /** Writes an RFC 4180 quoted field: `"`, the text with each `"` doubled, `"`. */
  writeQuoted(text: string | Uint8Array): void {
    const max = typeof text === 'string' ? text.length * 3 : text.length;
    this.ensure(2 * max + 2);
    const b = this.bytes;
    const start = this.end + 1;
    let n: number;
    if (typeof text === 'string') n = b.write(text, start, 'utf8');
    else {
      b.set(text, start);
      n = text.length;
    }
    let quotes = 0;
    for (let i = start; i < start + n; i++) if (b[i] === 0x22) quotes++;
    // Double the quotes in place, back to front, so each byte moves once.
    const total = quotes;
    for (let r = start + n - 1, w = r + quotes; quotes > 0;) {
      const c = b[r--]!;
      b[w--] = c;
      if (c === 0x22) {
        b[w--] = 0x22;
        quotes--;
      }
    }
    b[this.end] = 0x22;
    this.end = start + n + total;
    b[this.end++] = 0x22;
  }

  /** The bytes written so far (exactly; never uninitialized memory); the buffer starts empty again. */
  take(): Buffer {
    const out = this.bytes.subarray(0, this.end);
    this.bytes = Buffer.allocUnsafe(Math.max(64 * 1024, this.end));
    this.end = 0;
    return out;
  }

  private ensure(more: number): void {
    if (this.end + more <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.end + more, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.end);
    this.bytes = next;
  }
}
