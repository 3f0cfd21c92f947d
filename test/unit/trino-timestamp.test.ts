/**
 * The Trino timestamp text grammar (core/trino-timestamp.ts) and the fast paths that read or write it without it:
 * over texts of every precision 0-12, years 0001-9999 (below 100 too), leap days and minute, day and year
 * boundaries, each fast path gives what the grammar gives or declines (the caller then asks the grammar).
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  epochOfTrinoTimestamp,
  parseTimestamp,
  TIMESTAMP_TEXT_PATTERN,
  TimestampTzParser,
  trinoTimestampText,
} from '../../src/core/trino-timestamp.js';
import { TimestampBytes } from '../../src/encode/arrow/timestamp-bytes.js';
import { instantToUnits, TimestampUnits } from '../../src/encode/arrow/timestamp-units.js';
import { PageBuffer } from '../../src/encode/text/page-buffer.js';
import {
  instantToIso,
  ISO_JSON_PLAIN,
  isoTimestampFrom,
  timestampToIso,
  writeIsoTimestamp,
} from '../../src/encode/text/timestamp-text.js';

const DIGITS = '123456789012';
const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Timestamp texts as Trino writes them: each precision 0-12 over a spread of instants and edges. */
function texts(): string[] {
  const out: string[] = [];
  const edges = [
    [1970, 1, 1, 0, 0, 0],
    [1969, 12, 31, 23, 59, 59],
    [2000, 2, 29, 12, 0, 0],
    [2026, 12, 31, 23, 59, 59],
    [1, 1, 1, 0, 0, 0],
    [99, 12, 31, 23, 59, 59],
    [100, 3, 1, 0, 0, 0],
    [9999, 12, 31, 23, 59, 59],
  ];
  for (let k = 0; k < 300; k++) {
    const d = new Date(Date.UTC(1900, 0, 1) + k * 40_009_777_003);
    edges.push([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), k % 60]);
  }
  for (const [i, [y, mo, d, h, mi, s]] of edges.entries()) {
    const base = `${pad(y!, 4)}-${pad(mo!, 2)}-${pad(d!, 2)} ${pad(h!, 2)}:${pad(mi!, 2)}:${pad(s!, 2)}`;
    const p = i % 13;
    out.push(p === 0 ? base : `${base}.${DIGITS.slice(0, p)}`);
  }
  return out;
}

/** Seconds since the epoch of the wall time of `text` in UTC, by Date (years below 100 taken as written). */
function wallSeconds(text: string): number {
  const d = new Date(0);
  d.setUTCFullYear(+text.slice(0, 4), +text.slice(5, 7) - 1, +text.slice(8, 10));
  d.setUTCHours(+text.slice(11, 13), +text.slice(14, 16), +text.slice(17, 19), 0);
  return d.getTime() / 1000;
}

describe('the grammar', () => {
  it('reads every precision 0-12 as its instant, the fraction kept as written', () => {
    const pattern = new RegExp(TIMESTAMP_TEXT_PATTERN);
    for (const text of texts()) {
      expect(pattern.test(text), text).toBe(true);
      expect(parseTimestamp(text), text).toEqual({ seconds: wallSeconds(text), fraction: text.slice(19) });
    }
    for (const odd of ['2026-11-01', '2026-11-01 00:00', 'x026-11-01 00:00:00', '2026-11-01T00:00:00Z'])
      expect([parseTimestamp(odd), new RegExp(TIMESTAMP_TEXT_PATTERN).test(odd)]).toEqual([null, false]);
    // A `.` without digits is read leniently (no fraction) but is not text a position or cursor may hold.
    expect([parseTimestamp('2026-11-01 00:00:00.')?.fraction, pattern.test('2026-11-01 00:00:00.')]).toEqual([
      '.',
      false,
    ]);
  });

  it('reads a zone: UTC, an offset, a name', () => {
    const parser = new TimestampTzParser();
    for (const text of texts().slice(0, 40)) {
      const local = parseTimestamp(text)!;
      expect(parser.parse(`${text} UTC`)).toEqual(local);
      expect(parser.parse(`${text} +02:00`)).toEqual({ seconds: local.seconds - 7200, fraction: local.fraction });
    }
    expect(parser.parse('2026-07-01 12:00:00.5 Europe/Berlin')).toEqual({
      seconds: Date.UTC(2026, 6, 1, 10) / 1000,
      fraction: '.5',
    });
    expect(parser.parse('2026-07-01 12:00:00 Nowhere/Atlantis')).toBeNull();
  });

  it('writes an instant in ms as timestamp(3) text, read back as the same ms', () => {
    for (const text of texts()) {
      const ms = epochOfTrinoTimestamp(text);
      expect(ms, text).toBe(wallSeconds(text) * 1000 + Number(`${text.slice(20, 23)}`.padEnd(3, '0')));
      expect(trinoTimestampText(ms)).toBe(`${text.slice(0, 19)}.${text.slice(20, 23).padEnd(3, '0')}`);
    }
  });
});

describe('the fast paths, against the grammar', () => {
  it('Arrow units from text and from bytes', () => {
    for (const digits of [3, 6]) {
      const units = new TimestampUnits();
      const bytes = new TimestampBytes(digits);
      for (const text of texts()) {
        const want = instantToUnits(parseTimestamp(text)!, digits);
        const fromText = units.read(text, digits);
        const fromBytes = bytes.units(Buffer.from(`"${text}"`), 1, text.length + 1);
        expect(fromBytes, text).toBe(fromText);
        if (fromText !== null) expect(fromText, text).toBe(want);
        // Left to the grammar: years below 100, and units past 2^53 (microseconds far from 1970).
        if (text >= '0100' && Math.abs(Number(want)) < 2 ** 53) expect(fromText, text).not.toBeNull();
        if (text < '0100') expect(fromText, text).toBeNull();
      }
    }
  });

  it('ISO-8601 from text and from bytes', () => {
    for (const text of texts()) {
      const iso = instantToIso(parseTimestamp(text)!);
      expect(timestampToIso(text)).toBe(iso);
      for (const quoted of [true, false]) {
        const fromText = new PageBuffer(8);
        expect(writeIsoTimestamp(fromText, text, ISO_JSON_PLAIN, quoted)).toBe(true);
        const fromBytes = new PageBuffer(8);
        const src = Buffer.from(`"${text}",1`);
        expect(isoTimestampFrom(src, 0, fromBytes, ISO_JSON_PLAIN, quoted)).toBe(text.length + 2);
        const want = quoted ? JSON.stringify(iso) : iso;
        expect([fromText.take().toString(), fromBytes.take().toString()]).toEqual([want, want]);
      }
    }
  });
});
