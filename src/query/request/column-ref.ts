/**
 * Column references as a request writes them: a column name, double-quoted or not, optionally followed by
 * PostgREST's JSON arrow path: `value->customer->>country`, `value->items->0->>sku`, `"value"->"odd key"->>x`.
 * `->` steps into JSON (the result is JSON), `->>` is the last step and gives text. A number is an array index; a
 * quoted operand is always a key. Inside `or=(...)` groups and `order=` the reference ends at the first `.` outside
 * double quotes, so keys holding a dot are quoted there.
 */
import { ApiError } from '../../core/errors.js';
import { readQuoted, scanUnquoted } from './postgrest-scanner.js';

/** The most steps a JSON path may have, and the most characters a column reference may have. */
export const MAX_PATH_STEPS = 16;
export const MAX_REF_LENGTH = 512;

export interface ColumnRef {
  /** The column (or expanded field) the path starts from, unquoted. */
  name: string;
  /** Keys and array indexes; empty for a plain column. */
  path: (string | number)[];
  /** The last step is `->>` (text) rather than `->` (JSON). */
  text: boolean;
}

function bad(ref: string, why: string, details: Record<string, unknown> = {}): ApiError {
  return new ApiError('TG_BAD_REQUEST', `${ref}: ${why}`, { column: ref, ...details });
}

/** Reads an operand or name up to the next `->` (or the end): quoted, or as written. */
function readOperand(ref: string, text: string, i: number): [string, boolean, number] {
  if (text[i] === '"') {
    const q = readQuoted(text, i);
    if (!q) throw bad(ref, 'unbalanced double quotes');
    return [q.value, true, q.end];
  }
  const next = text.indexOf('->', i);
  const end = next < 0 ? text.length : next;
  return [text.slice(i, end), false, end];
}

/** Parses a whole reference. A malformed one, or one past the caps, is a 400 naming it and the cap. */
export function parseColumnRef(text: string): ColumnRef {
  if (text.length > MAX_REF_LENGTH) {
    throw bad(`${text.slice(0, 40)}...`, `a column reference may have at most ${MAX_REF_LENGTH} characters`, {
      maxLength: MAX_REF_LENGTH,
    });
  }
  const [name, quotedName, afterName] = readOperand(text, text, 0);
  if (!quotedName && !text.includes('->')) return { name: text, path: [], text: false };
  const path: (string | number)[] = [];
  let asText = false;
  let i = afterName;
  while (i < text.length) {
    if (asText) throw bad(text, '->> gives text, so it can only be the last step');
    if (!text.startsWith('->', i)) throw bad(text, `expected -> or ->> at ${i}`);
    asText = text.startsWith('->>', i);
    i += asText ? 3 : 2;
    const [operand, quoted, end] = readOperand(text, text, i);
    if (!quoted && operand === '') throw bad(text, `a key or an index is missing after -> at ${i}`);
    if (!quoted && /^-\d+$/.test(operand)) {
      throw bad(text, `${operand}: negative array indexes have no Trino counterpart here`);
    }
    path.push(!quoted && /^\d{1,9}$/.test(operand) ? Number(operand) : operand);
    i = end;
  }
  if (path.length > MAX_PATH_STEPS) {
    throw bad(text, `a JSON path may have at most ${MAX_PATH_STEPS} steps`, { maxSteps: MAX_PATH_STEPS });
  }
  if (name === '') throw bad(text, 'the column name is missing');
  return { name, path, text: asText };
}

/** The length of the reference at the start of `text`: up to the first `.` outside double quotes. */
export function refLength(text: string): number {
  const { stop } = scanUnquoted(text, (c) => c === '.');
  return stop < 0 ? text.length : stop;
}

/**
 * A select item `alias:reference` (PostgREST's renaming) into its parts. `::` (a cast) has no counterpart here:
 * refused, naming it.
 */
export function splitAlias(item: string): { alias: string | null; ref: string } {
  const { stop: i } = scanUnquoted(item, (c) => c === ':');
  if (i < 0) return { alias: null, ref: item };
  if (item[i + 1] === ':' || item.includes('::', i + 1)) {
    throw bad(item, 'casts (::) have no counterpart here; select the column as it is');
  }
  return { alias: item.slice(0, i), ref: item.slice(i + 1) };
}

const PLAIN_KEY = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** The canonical text of a reference (names in errors and page-token hashes): keys quoted when they need it. */
export function refText(ref: ColumnRef): string {
  const part = (k: string) => (PLAIN_KEY.test(k) ? k : JSON.stringify(k));
  let out = part(ref.name);
  ref.path.forEach((k, i) => {
    out += i === ref.path.length - 1 && ref.text ? '->>' : '->';
    out += typeof k === 'number' ? String(k) : part(k);
  });
  return out;
}
