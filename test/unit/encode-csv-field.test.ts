/**
 * The one CSV field writer (src/encode/text/csv-field.ts): exact fields for a hostile corpus, its three forms
 * agreeing byte for byte, and every field reading back as its text under RFC 4180.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { CSV_PLAIN, CSV_SPECIAL, csvFieldFrom, quoteCsvFrom, writeCsvField } from '../../src/encode/text/csv-field.js';
import { PageBuffer } from '../../src/encode/text/page-buffer.js';

/** Each form writes `text` as one field between `x,` and `,y`, in a page that starts small (so it must grow). */
const FORMS = {
  writeCsvField: (out: PageBuffer, text: string) => writeCsvField(out, text),
  csvFieldFrom: (out: PageBuffer, text: string) => {
    const start = out.end;
    out.write(text);
    csvFieldFrom(out, start);
  },
};

function field(form: keyof typeof FORMS, text: string): string {
  const out = new PageBuffer(4);
  out.write('x,');
  FORMS[form](out, text);
  out.writeBytes(Buffer.from(',y'));
  const s = out.take().toString('utf8');
  expect(s.startsWith('x,') && s.endsWith(',y'), s).toBe(true);
  return s.slice(2, -2);
}

/** Reads one RFC 4180 field back (the whole string is one field). */
function readField(f: string): string {
  if (!f.startsWith('"')) {
    expect(f, 'an unquoted field holds no special character').not.toMatch(/[",\r\n]/);
    return f;
  }
  expect(f.endsWith('"') && f.length >= 2, f).toBe(true);
  const inner = f.slice(1, -1);
  expect(inner.replaceAll('""', ''), 'every quote inside is doubled').not.toContain('"');
  return inner.replaceAll('""', '"');
}

// [text, the exact field]
const CASES: [string, string][] = [
  ['', '""'], // the empty string is quoted: an unquoted empty field is NULL
  ['plain', 'plain'],
  ['a,b', '"a,b"'],
  ['say "hi"', '"say ""hi"""'],
  ['"', '""""'],
  ['""', '""""""'],
  [',', '","'],
  ['line1\nline2', '"line1\nline2"'],
  ['cr\r', '"cr\r"'],
  ['crlf\r\n', '"crlf\r\n"'],
  [' padded ', ' padded '], // spaces are data (RFC 4180), never trimmed or quoted
  ['tab\there', 'tab\there'],
  ['nul\u0000', 'nul\u0000'],
  ["it's", "it's"],
  ['back\\slash', 'back\\slash'],
  ['#not a comment', '#not a comment'],
  ['é🚀 李雷 مريم', 'é🚀 李雷 مريم'],
  ['rtl \u202e mark', 'rtl \u202e mark'],
  ['é,"🚀"', '"é,""🚀"""'],
  ['\u2028\u2029', '\u2028\u2029'],
  ['lone \ud800', 'lone \ufffd'], // not UTF-8: written as U+FFFD, as any text the page takes
  ['x'.repeat(100) + '"', '"' + 'x'.repeat(100) + '"""'],
];

describe('csv-field', () => {
  it.each(CASES)('%j -> %j', (text, expected) => {
    for (const form of Object.keys(FORMS) as (keyof typeof FORMS)[]) expect(field(form, text), form).toBe(expected);
  });

  it.each<[string | Uint8Array, string]>([
    ['plain', '"plain"'],
    ['', '""'],
    ['a"b', '"a""b"'],
    ['"é"\r\n"', '"""é""\r\n"""'],
    [Buffer.from('{"k":"v"}'), '"{""k"":""v""}"'],
  ])('quoteCsvFrom(%j) always quotes', (text, expected) => {
    const out = new PageBuffer();
    out.write('x,');
    const start = out.end;
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    out.writeBytes(bytes);
    quoteCsvFrom(out, start, bytes.filter((c) => c === 0x22).length);
    out.writeBytes(Buffer.from(',y'));
    expect(out.take().toString()).toBe('x,' + expected + ',y');
    expect(out.take().length).toBe(0);
  });

  it('grows the page past its first allocation', () => {
    const out = new PageBuffer();
    const quotes = '"'.repeat(50_000);
    writeCsvField(out, quotes);
    out.write('é'.repeat(40_000));
    expect(out.take().toString()).toBe('"' + quotes + quotes + '"' + 'é'.repeat(40_000));
  });

  it('reads back as its text, and both forms agree, on 20k random strings', () => {
    const atoms = ['a', 'Z', '0', ' ', ',', '"', '""', '\r', '\n', '\r\n', '\t', '\\', 'é', '🚀', 'م', '\u0000', "'"];
    let seed = 4180;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    for (let t = 0; t < 20_000; t++) {
      let text = '';
      for (let k = rnd(8); k > 0; k--) text += atoms[rnd(atoms.length)];
      const a = field('writeCsvField', text);
      if (field('csvFieldFrom', text) !== a) expect.fail(`forms differ on ${JSON.stringify(text)}`);
      if (readField(a) !== text) expect.fail(`${JSON.stringify(text)} -> ${JSON.stringify(a)}`);
    }
  });

  it('quotes exactly for comma, quote, CR and LF', () => {
    const special = [...Array(128).keys()].filter((c) => CSV_SPECIAL[c] === 1);
    expect(special).toEqual([0x0a, 0x0d, 0x22, 0x2c]);
    for (let c = 0; c < 128; c++) expect(CSV_PLAIN[c], String(c)).toBe(1 - CSV_SPECIAL[c]!);
  });
});
