/**
 * The JSON scanner (core/json-scan.ts) against what the text means: where JSON.stringify's string ends, where the
 * n-th of a batch of rows ends, and its fast paths (the search over bytes, the scan of a JavaScript string, the
 * validating scanner of payloads, the minifier) against its byte loop, on a corpus of escapes, surrogates, strings
 * holding brackets and commas, long strings and text that is not JSON.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  commaAfter,
  elementEnd,
  skipSpace,
  stringEnd,
  stringEndBySearch,
  textStringEnd,
  valueEnd,
} from '../../src/core/json-scan.js';
import { quoteLongIntegers } from '../../src/core/lossless-json.js';
import { minifyBytes, minifyJson } from '../../src/encode/text/json-minify.js';
import { JsonScanner } from '../../src/encode/text/validating-json-scanner.js';
import { asciiStringEnd, plainStringEnd } from '../../src/encode/text/json-token.js';

/** Texts of strings: escapes, surrogates (paired and lone), brackets and commas inside, long. */
const STRINGS = [
  '',
  'plain',
  'a"b',
  'back\\slash',
  'ends with \\',
  '\\"',
  '"\\\\"',
  'tab\tline\nfeed\r\u0000\u001f',
  '[1,2],{"x":[}]',
  ',,,]]]}}}',
  'é ü € 中文',
  '😀 \ud83d\ude00',
  'lone \ud800 high',
  'lone \udfff low',
  '\u2028\u2029',
  'x'.repeat(100_000),
  '\\'.repeat(999),
  `${'"'.repeat(500)}${'\\'.repeat(501)}`,
];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random bytes from the ones that matter to a scan (and UTF-8 of several lengths): mostly not JSON. */
function noise(next: () => number, length: number): Buffer {
  const parts = ['"', '\\', 'a', '[', ']', '{', '}', ',', ' ', '\n', '1', 'é', '€', '😀', ':'];
  let s = '';
  for (let i = 0; i < length; i++) s += parts[Math.floor(next() * parts.length)];
  return Buffer.from(s);
}

/** A random JSON value: nested arrays and objects, strings of the corpus, numbers, literals. */
function value(next: () => number, depth = 0): unknown {
  const r = next();
  if (depth < 3 && r < 0.2) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  if (depth < 3 && r < 0.35) {
    const o: Record<string, unknown> = {};
    for (let k = Math.floor(next() * 3); k > 0; k--) o[STRINGS[Math.floor(next() * 12)]!] = value(next, depth + 1);
    return o;
  }
  if (r < 0.7) return STRINGS[Math.floor(next() * 15)]!;
  if (r < 0.85) return Math.floor(next() * 1e6) - 5e5;
  return [null, true, false, 1.5e300, 12345678901234567][Math.floor(next() * 5)];
}

/** Every index of `b` at which a string could open. */
function quotes(b: Uint8Array): number[] {
  return [...b.keys()].filter((i) => b[i] === 0x22);
}

describe('the end of a string', () => {
  it.each(STRINGS.map((s) => [s.slice(0, 40), s]))('%j: where JSON.stringify wrote it to end', (_, s) => {
    const token = JSON.stringify(s);
    for (const tail of ['', ',"x"]', '"', ']}', '\\"']) {
      const b = Buffer.from(token + tail);
      expect(stringEnd(b, 0)).toBe(Buffer.byteLength(token));
      expect(stringEndBySearch(b, 0)).toBe(Buffer.byteLength(token));
      expect(textStringEnd(token + tail, 0)).toBe(token.length);
      expect(valueEnd(b, 0)).toBe(Buffer.byteLength(token));
    }
  });

  it('does not end when the text ends first', () => {
    for (const text of ['"', '"abc', '"abc\\"', '"abc\\', '"\\\\\\"']) {
      expect([stringEnd(Buffer.from(text), 0), stringEndBySearch(Buffer.from(text), 0)]).toEqual([-1, -1]);
      expect(textStringEnd(text, 0)).toBe(-1);
    }
    expect(stringEnd(Buffer.from('"ab"'), 0, 3)).toBe(-1);
  });

  it('the search and the scan of a string give the byte loop’s answer on any text', () => {
    const next = random(46);
    for (let n = 0; n < 2000; n++) {
      const b = noise(next, 1 + Math.floor(next() * 40));
      const latin1 = b.toString('latin1'); // one code unit per byte
      for (const i of quotes(b)) {
        const end = stringEnd(b, i);
        expect(stringEndBySearch(b, i)).toBe(end);
        expect(textStringEnd(latin1, i)).toBe(end);
      }
    }
  });

  it('the plain-string readers end a string where the byte loop does, or decline it', () => {
    const next = random(11);
    const texts: Buffer[] = [...STRINGS.map((s) => Buffer.from(JSON.stringify(s))), Buffer.from('"ab"c"')];
    for (let n = 0; n < 2000; n++) texts.push(noise(next, 1 + Math.floor(next() * 30)));
    for (const b of texts) {
      for (const i of quotes(b)) {
        const end = stringEnd(b, i);
        for (const fast of [plainStringEnd(b, i), asciiStringEnd(b, i)]) if (fast >= 0) expect(fast).toBe(end);
      }
    }
    expect(plainStringEnd(Buffer.from('"é€😀 ,]"'), 0)).toBe(Buffer.byteLength('"é€😀 ,]"'));
    expect(asciiStringEnd(Buffer.from('"2026-11-01 00:00:00.000"'), 0)).toBe(25);
  });

  it('the validating scanner ends a string where the byte loop does', () => {
    const scanner = new JsonScanner();
    for (const s of STRINGS) {
      const b = Buffer.from(`${JSON.stringify(s)}`);
      if (scanner.scan(b, 0, b.length) >= 0) expect(stringEnd(b, 0)).toBe(b.length);
    }
    const next = random(7);
    for (let n = 0; n < 3000; n++) {
      const b = Buffer.concat([Buffer.from('"'), noise(next, Math.floor(next() * 12))]);
      const accepted = scanner.scan(b, 0, b.length) >= 0;
      const end = stringEnd(b, 0);
      // Accepted: one string, white space after it allowed.
      if (accepted) expect(end > 0 && skipSpace(b, end) === b.length).toBe(true);
      if (end < 0 || skipSpace(b, end) !== b.length) expect(accepted).toBe(false);
    }
  });
});

describe('the end of a value and of an element', () => {
  it('a value of any kind ends where JSON.stringify wrote it to end', () => {
    const next = random(1);
    for (let n = 0; n < 500; n++) {
      const text = JSON.stringify(value(next));
      const b = Buffer.from(`${text},[1]`);
      const end = Buffer.byteLength(text);
      expect(valueEnd(b, 0)).toBe(end);
      expect(elementEnd(b, 0)).toBe(end);
      expect(elementEnd(Buffer.from(`  ${text} ]`), 0)).toBe(end + 3);
    }
  });

  it('an element that does not end, or whose string does not close', () => {
    for (const text of ['[1,2', '"a,b', '{"a":"]', '1 2']) expect(elementEnd(Buffer.from(text), 0)).toBe(-1);
    expect(valueEnd(Buffer.from('["a]'), 0)).toBe(-1);
  });
});

describe('the comma after the n-th row', () => {
  it('is where the first n rows, written by JSON.stringify, end', () => {
    const next = random(2);
    for (let n = 0; n < 300; n++) {
      const rows = Array.from({ length: 1 + Math.floor(next() * 6) }, () => JSON.stringify([value(next)]));
      const b = Buffer.from(rows.join(','));
      for (let k = 1; k < rows.length; k++) {
        expect(commaAfter(b, k)).toBe(Buffer.byteLength(rows.slice(0, k).join(',')));
      }
      expect(commaAfter(b, rows.length)).toBe(-1);
    }
  });

  it('starts where it is told, and finds no comma in text that is not rows', () => {
    expect(commaAfter(Buffer.from('[9],[1,","],[2]'), 1, 4)).toBe(11);
    for (const text of ['[1]]', '"a,b', '[1', '']) expect(commaAfter(Buffer.from(text), 1)).toBe(-1);
  });
});

describe('the readers that skip strings, on the scanner', () => {
  it('minifying bytes and text give the same, leaving strings as they are', () => {
    const next = random(3);
    for (let n = 0; n < 300; n++) {
      const v = value(next);
      const text = JSON.stringify(v, null, n % 3);
      const b = Buffer.from(`xx${text}`);
      const end = minifyBytes(b, 2, b.length, 0);
      expect(b.toString('utf8', 0, end)).toBe(JSON.stringify(v));
      expect(minifyJson(text)).toBe(JSON.stringify(v));
    }
  });

  it('long integers are quoted outside strings only', () => {
    expect(quoteLongIntegers('[1234567890123456789,"1234567890123456789\\"",[-12345678901234567]]')).toBe(
      '["1234567890123456789","1234567890123456789\\"",["-12345678901234567"]]',
    );
    expect(quoteLongIntegers('["\\\\",1234567890123456789]')).toBe('["\\\\","1234567890123456789"]');
  });

  it('white space is skipped up to the next token', () => {
    expect(skipSpace(Buffer.from(' \t\r\n x'), 0)).toBe(5);
    expect(skipSpace(Buffer.from('  '), 0)).toBe(2);
  });
});
