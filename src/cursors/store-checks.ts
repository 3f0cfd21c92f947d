/**
 * Checks and normal forms shared by the cursor stores (SQLite and PostgreSQL), so both refuse the same input
 * and keep instants in the same text form.
 */
import type { HistoryEntry, Position } from './cursor-store.js';

/** An instant as normalised ISO text (millisecond precision, UTC), so text order is time order in both stores. */
export function toInstant(text: string): string {
  // A zone is required: JavaScript reads a date-time without one as local time.
  const ms = typeof text === 'string' && /(?:Z|[+-]\d\d:?\d\d)$/i.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`not an ISO instant with a zone: ${JSON.stringify(text)}`);
  return new Date(ms).toISOString();
}

export function checkName(name: string): void {
  if (typeof name !== 'string' || name === '' || name.includes('\0')) {
    throw new TypeError('a cursor name must be a non-empty string without NUL characters');
  }
}

export function checkCount(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`${what} must be a non-negative integer, got ${n}`);
}

export function checkPosition(p: Position): void {
  if (p.ts !== null && typeof p.ts !== 'string') throw new TypeError('a position ts must be a string or null');
  checkCount('a position skip', p.skip);
}

export function checkEntry(name: string, e: HistoryEntry): void {
  if (e.name !== name) throw new TypeError(`history entry of ${JSON.stringify(e.name)} committed to ${name}`);
  checkPosition(e.from);
  checkPosition(e.to);
  checkCount('rows', e.rows);
}
