/**
 * The one module that puts text next to a quote in SQL. Identifiers are always double-quoted with `"` doubled;
 * literals come from a closed set of typed renderers, and anything they cannot render safely throws.
 * (Trino has no bind parameters on the wire, so every value becomes a literal here.)
 */
import { ApiError } from '../../core/errors.js';

/** Thrown when a value cannot be rendered as the requested literal: a 400 naming why. */
export class LiteralError extends ApiError {
  constructor(why: string) {
    super('TG_BAD_VALUE', `a value cannot be used: ${why}`);
    this.name = 'LiteralError';
  }
}

function rejectControl(s: string, what: string): void {
  // NUL cannot be carried by Trino's SQL text at all; reject rather than truncate silently.
  if (s.includes('\u0000')) throw new LiteralError(`${what} contains a NUL character`);
  if (!s.isWellFormed()) throw new LiteralError(`${what} contains a lone UTF-16 surrogate`);
}

/** `"name"`, with embedded quotes doubled. */
export function quoteIdent(name: string): string {
  rejectControl(name, 'identifier');
  if (name.length === 0) throw new LiteralError('empty identifier');
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A varchar literal. Quotes are doubled; other characters (backslash, newlines, emoji, bidi marks) are inert
 * inside a standard SQL string. Non-BMP or control characters are written with U&'' escapes so the SQL text
 * stays printable in logs and plans.
 */
export function stringLiteral(s: string): string {
  rejectControl(s, 'string');
  if (/^[\x20-\x7e]*$/.test(s)) return `'${s.replace(/'/g, "''")}'`;
  let body = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "'") body += "''";
    else if (ch === '\\') body += '\\\\';
    else if (cp >= 0x20 && cp < 0x7f) body += ch;
    else if (cp <= 0xffff) body += `\\${cp.toString(16).padStart(4, '0')}`;
    else body += `\\+${cp.toString(16).padStart(6, '0')}`;
  }
  return `U&'${body}'`;
}

/** A varbinary literal `X'..'` from raw bytes. */
export function varbinaryLiteral(bytes: Uint8Array): string {
  return `X'${Buffer.from(bytes).toString('hex')}'`;
}

export function booleanLiteral(b: boolean): string {
  return b ? 'TRUE' : 'FALSE';
}

/** An exact integer literal; accepts a JS safe integer, a bigint or a string of digits. */
export function integerLiteral(v: number | bigint | string): string {
  const s = typeof v === 'string' ? v.trim() : String(v);
  if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new LiteralError(`${v} is not an exact integer`);
  if (!/^-?\d{1,38}$/.test(s)) throw new LiteralError(`${JSON.stringify(s)} is not an integer`);
  // Trino reads an integer literal as BIGINT at most.
  const n = BigInt(s);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) throw new LiteralError(`${s} is out of the BIGINT range`);
  return n.toString();
}

/** An exact decimal literal `DECIMAL '12.30'` (keeps scale and every digit). */
export function decimalLiteral(v: string | number): string {
  const s = String(v).trim();
  if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(s) || s.replace(/[-.]/g, '').length > 38) {
    throw new LiteralError(`${JSON.stringify(s)} is not a decimal number`);
  }
  return `DECIMAL '${s}'`;
}

/** A double literal; NaN and infinities are written as Trino functions. */
export function doubleLiteral(v: number): string {
  if (Number.isNaN(v)) return 'nan()';
  if (v === Infinity) return 'infinity()';
  if (v === -Infinity) return '-infinity()';
  const s = String(v);
  return /[eE.]/.test(s) ? `DOUBLE '${s}'` : `DOUBLE '${s}.0'`;
}

/**
 * `TIMESTAMP 'YYYY-MM-DD HH:MM:SS.fff'` for a timestamp(p) column, from a UTC instant given as epoch
 * milliseconds plus an optional sub-millisecond digit string (for precision beyond 3).
 */
export function timestampLiteral(epochMs: number, subMs = ''): string {
  if (!Number.isFinite(epochMs) || Number.isNaN(new Date(epochMs).getTime()))
    throw new LiteralError('instant out of range');
  if (!/^\d{0,9}$/.test(subMs)) throw new LiteralError('invalid sub-millisecond digits');
  const iso = new Date(epochMs).toISOString(); // 2026-11-30T08:00:00.000Z
  if (!/^\d{4}-/.test(iso)) throw new LiteralError('instant out of range');
  return `TIMESTAMP '${iso.slice(0, 10)} ${iso.slice(11, 23)}${subMs}'`;
}

/** True for `YYYY-MM-DD` naming a day that exists (Date.parse would roll 2026-02-30 over to March). */
export function isCalendarDate(s: string): boolean {
  const ms = Date.parse(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === s;
}

/** `DATE 'YYYY-MM-DD'`. */
export function dateLiteral(s: string): string {
  if (!isCalendarDate(s)) {
    throw new LiteralError(`${JSON.stringify(s)} is not a date`);
  }
  return `DATE '${s}'`;
}

/**
 * A JSON path inside a SQL string literal: escaped for JSONPath first (each key in bracket notation with its
 * own quoting), then for SQL by stringLiteral. Innermost grammar first, so neither can break out of the other.
 */
export function jsonPathLiteral(keys: readonly (string | number)[]): string {
  let path = '$';
  for (const k of keys) {
    if (typeof k === 'number') {
      if (!Number.isInteger(k) || k < 0) throw new LiteralError(`bad array index ${k}`);
      path += `[${k}]`;
    } else {
      rejectControl(k, 'JSON key');
      path += `["${k.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`;
    }
  }
  return stringLiteral(path);
}

/**
 * A comment that marks a statement (`/* topicgate load orders-lake *\/`), so the gateway can find its own statements
 * among Trino's queries. Only a closed alphabet is written: no text can end the comment early.
 */
export function markerComment(words: readonly string[]): string {
  for (const w of words) {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(w))
      throw new LiteralError(`${JSON.stringify(w)} cannot be written in a marker`);
  }
  return `/* ${words.join(' ')} */`;
}
