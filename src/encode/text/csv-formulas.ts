/**
 * CSV injection (OWASP "CSV Injection"): a spreadsheet opening a CSV file reads a cell that begins with `=`, `+`,
 * `-`, `@`, tab or CR as a formula, so an event's key or payload (anyone who can produce to a topic writes them)
 * would run in the reader's spreadsheet. OWASP's rule: such a cell gets a single quote `'` before its text, inside
 * a quoted field (`"'=cmd|..."`), which spreadsheets show as text.
 *
 * It applies, when `TOPICGATE_CSV_FORMULAS=escape` (the default), to the header row and to the columns whose
 * values are text from outside (varchar, char, varbinary, json, types of Trino plugins): the numbers, booleans,
 * dates, times, timestamps, intervals, UUIDs and IP addresses Trino writes in its own grammar are left alone, so
 * `-5` in a bigint column stays the number -5. `keep` writes every cell as stored.
 *
 * Done in place after a column's writer wrote its whole field (csv-field.ts): only the field's first content
 * byte is looked at, and only a field that begins with one of the six bytes is moved (back to front, once).
 */
import { knownBase, type TrinoBase, type TrinoType } from '../../core/trino-types.js';
import type { TextWriter } from './json-text-writer.js';
import type { ValueWriter } from './json-value-writer.js';
import type { PageBuffer } from './page-buffer.js';

/** `escape` (OWASP's rule, see above) or `keep` (every cell as stored). */
export type CsvFormulas = 'escape' | 'keep';

const QUOTE = 0x22;
const APOSTROPHE = 0x27;

/** Per ASCII byte: 1 for the bytes that make a spreadsheet read a cell as a formula: `=`, `+`, `-`, `@`, tab, CR. */
const FORMULA_START: Uint8Array = Uint8Array.from({ length: 128 }, (_, c) =>
  /[=+\-@\t\r]/.test(String.fromCharCode(c)) ? 1 : 0,
);

/**
 * Built-in types whose values are text from outside: every other built-in type Trino writes in a grammar of its own
 * (numbers, booleans, times, intervals, UUIDs, addresses; nested values as JSON text beginning with `[` or `{`), and
 * is left alone. `unknown` holds only nulls.
 */
const TEXT_BASES: ReadonlySet<TrinoBase> = new Set<TrinoBase>(['varchar', 'char', 'varbinary', 'json', 'unknown']);

/** Whether a column of `type` holds text from outside that may begin like a formula. */
export function holdsFormulaText(type: TrinoType): boolean {
  const base = knownBase(type);
  return base === null || TEXT_BASES.has(base);
}

/**
 * Makes the CSV field written since `start` safe: when its text begins with a formula byte, `'` goes before the
 * text, and the field is quoted (an unquoted field holds no `"`, so its bytes need no doubling).
 */
export function neutralizeCsvFrom(out: PageBuffer, start: number): void {
  const end = out.end;
  if (end === start) return;
  const first = out.bytes[start]!;
  if (first === QUOTE) {
    if (end - start < 3 || FORMULA_START[out.bytes[start + 1]!] !== 1) return;
    out.ensure(1);
    const b = out.bytes;
    b.copyWithin(start + 2, start + 1, end);
    b[start + 1] = APOSTROPHE;
    out.end = end + 1;
    return;
  }
  if (first >= 0x80 || FORMULA_START[first] !== 1) return;
  out.ensure(3);
  const b = out.bytes;
  b.copyWithin(start + 2, start, end);
  b[start] = QUOTE;
  b[start + 1] = APOSTROPHE;
  b[end + 2] = QUOTE;
  out.end = end + 3;
}

/** `write` followed by neutralizeCsvFrom over what it wrote. */
export function escapingValues(write: ValueWriter): ValueWriter {
  return (v, out) => {
    const start = out.end;
    write(v, out);
    neutralizeCsvFrom(out, start);
  };
}

/** `write` followed by neutralizeCsvFrom over what it wrote (when it wrote the value rather than declining). */
export function escapingText(write: TextWriter | null): TextWriter | null {
  if (!write) return null;
  return (src, i, out) => {
    const start = out.end;
    const end = write(src, i, out);
    if (end > 0) neutralizeCsvFrom(out, start);
    return end;
  };
}
