/** Cursor positions: where a start or seek text puts a cursor, comparing positions, showing them. */
import { trinoTimestampText } from '../core/trino-timestamp.js';
import { parseInstant } from '../query/request/time.js';
import type { Position } from './cursor-store.js';

/** `earliest`, `latest` (now) or an instant; `what` names the field in a refusal. */
export function positionAt(text: string, what: string, now = Date.now()): Position {
  if (text === 'earliest') return { ts: null, skip: 0 };
  return { ts: trinoTimestampText(text === 'latest' ? now : parseInstant(text, what, now).epochMs), skip: 0 };
}

export function samePosition(a: Position, b: Position): boolean {
  return a.ts === b.ts && a.skip === b.skip;
}

export function describe(p: Position): string {
  return p.ts === null ? `the beginning (+${p.skip})` : `${p.ts} (+${p.skip})`;
}

/** A position as the API shows it: an ISO instant (or null for the beginning) and the skip at that instant. */
export function showPosition(p: Position): { timestamp: string | null; skip: number } {
  return { timestamp: p.ts === null ? null : `${p.ts.replace(' ', 'T')}Z`, skip: p.skip };
}
