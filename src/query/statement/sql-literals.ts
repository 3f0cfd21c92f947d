/**
 * SQL literals as the values of a `/query` body's filters: text the body's value grammar reads into a literal of
 * the column's own type (request/values.ts), so numbers keep every digit (`12345678901234567890`, `0.10`), times are
 * ISO-8601 UTC, bytes are `\x` + hex. A LIKE pattern becomes the body's pattern grammar (request/patterns.ts).
 */
import { ApiError } from '../../core/errors.js';
import { parseInstant } from '../request/time.js';
import type { SqlRefusals } from './sql-error.js';
import type { SqlLiteral } from './statement-ast.js';

/**
 * `TIMESTAMP 'YYYY-MM-DD[ HH:MM[:SS[.fraction]]][ zone]'` with a zone of `Z`, `UTC` or `±HH:MM` (none: UTC, as broker
 * time is): ISO-8601 text. Named zones are refused: a gateway without a zone database would guess.
 */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The body's value for a literal; NULL has none (`= NULL` is never true: IS NULL is the predicate). */
export function literalValue(lit: SqlLiteral, at: number, refuse: SqlRefusals): string {
  switch (lit.t) {
    case 'string':
    case 'relative':
      return lit.v;
    case 'number':
      return plainNumber(lit.v);
    case 'boolean':
      return String(lit.v);
    case 'bytes':
      return `\\x${lit.hex}`;
    case 'null':
      throw refuse.malformed('a comparison with NULL is never true', { offset: at }, 'write IS NULL or IS NOT NULL');
    case 'timestamp':
      return timestampText(lit.v, at, refuse);
    case 'date':
      if (!DATE.test(lit.v)) throw refuse.malformed(`DATE ${JSON.stringify(lit.v)} is not YYYY-MM-DD`, { offset: at });
      checkInstant(lit.v, at, refuse);
      return lit.v;
  }
}

const EXPONENT = /^(-?)(\d*)(?:\.(\d*))?[eE]([+-]?\d{1,4})$/;

/**
 * A number in plain digits: `1e3` is `1000` and `2.5E-2` is `0.025`, exactly (the body's integer and decimal values
 * take plain digits only). An exponent beyond 10^±400 is left as written (no column type holds it).
 */
export function plainNumber(text: string): string {
  const m = EXPONENT.exec(text);
  if (!m || Math.abs(Number(m[4])) > 400) return text;
  const [, sign, int = '', frac = '', exp] = m;
  const digits = `${int}${frac}`;
  const point = int.length + Number(exp);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  const whole = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const rest = padded.slice(at).replace(/0+$/, '');
  return `${sign}${whole}${rest ? `.${rest}` : ''}`;
}

function timestampText(text: string, at: number, refuse: SqlRefusals): string {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) {
    throw refuse.malformed(
      `TIMESTAMP ${JSON.stringify(text.slice(0, 60))} is not a timestamp`,
      { offset: at },
      "write TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fff][ UTC|Z|+HH:MM]'",
    );
  }
  const [, date, time = '00:00:00', zone = 'Z'] = m;
  const z = zone.toUpperCase() === 'UTC' ? 'Z' : zone.toUpperCase();
  const iso = `${date}T${time.length === 5 ? `${time}:00` : time}${z}`;
  checkInstant(iso, at, refuse);
  return iso;
}

/** A date or time that names no instant (`2026-02-30`) is refused here, where its position is known. */
function checkInstant(text: string, at: number, refuse: SqlRefusals): void {
  try {
    parseInstant(text, 'TIMESTAMP');
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw refuse.malformed(`${JSON.stringify(text)} is not a valid date-time`, { offset: at });
  }
}

/**
 * A SQL LIKE pattern (`%` any text, `_` one character, the ESCAPE character before `%`, `_` or itself) in the body's
 * grammar, where `\` escapes and `*` is a wildcard too: a `\` is written `\\`, and a literal `*` has no spelling there.
 */
export function likeText(pattern: string, esc: string | null, at: number, refuse: SqlRefusals): string {
  let out = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (esc !== null && ch === esc) {
      const next = chars[++i];
      if (next !== '%' && next !== '_' && next !== esc) {
        throw refuse.malformed(`the ESCAPE character ${JSON.stringify(esc)} must come before %, _ or itself`, {
          offset: at,
        });
      }
      out += next === esc ? literalChar(next, at, refuse) : `\\${next}`;
    } else out += ch === '%' || ch === '_' ? ch : literalChar(ch, at, refuse);
  }
  return out;
}

function literalChar(ch: string, at: number, refuse: SqlRefusals): string {
  if (ch === '*') {
    throw refuse.notInSubset('A literal * in a LIKE pattern', { offset: at }, 'match it with _ (any one character)');
  }
  return ch === '\\' ? '\\\\' : ch;
}

/** The ESCAPE clause's character: a string of exactly one character. */
export function escapeChar(lit: SqlLiteral | null, at: number, refuse: SqlRefusals): string | null {
  if (lit === null) return null;
  if (lit.t !== 'string' || [...lit.v].length !== 1) {
    throw refuse.malformed('ESCAPE takes a string of one character', { offset: at });
  }
  return lit.v;
}
