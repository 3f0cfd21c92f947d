/**
 * Request values become literals of their column's own type (so the comparison stays on the bare column and
 * the storage can evaluate it). A value that does not fit the type is a 400 naming the column.
 */
import { ApiError } from '../../core/errors.js';
import { parseInstant } from './time.js';
import { isCalendarDate } from '../sql/sql-text.js';
import type { ColumnNode, LiteralNode, LiteralValue } from '../tree/nodes.js';
import { decimalDigits, timestampPrecision, trinoTypeOf, typeFamily } from '../../core/type-family.js';

const INT_RANGES: Record<string, [bigint, bigint]> = {
  tinyint: [-128n, 127n],
  smallint: [-32768n, 32767n],
  integer: [-2147483648n, 2147483647n],
  bigint: [-9223372036854775808n, 9223372036854775807n],
};

function bad(column: ColumnNode, raw: unknown, why: string): ApiError {
  return new ApiError('TG_BAD_VALUE', `${column.name}: ${JSON.stringify(raw)} ${why}`, {
    column: column.name,
    type: column.type,
  });
}

/** Bytes from `\x`-prefixed hex (PostgreSQL bytea notation) or from UTF-8 text. */
export function parseBytes(text: string): Buffer | undefined {
  if (text.startsWith('\\x')) {
    const hex = text.slice(2);
    return /^([0-9a-fA-F]{2})*$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
  }
  return Buffer.from(text, 'utf8');
}

/** What to do with digits finer than the column: round up (>=, <), down (>, <=), or refuse (=, <>, IN). */
export type Rounding = 'up' | 'down' | 'exact';

function parseValue(column: ColumnNode, raw: unknown, rounding: Rounding): LiteralValue {
  const family = typeFamily(column.type);
  const text =
    typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined;
  if (text === undefined) throw bad(column, raw, `is not a ${column.type} value`);
  // SQL text cannot carry NUL, and a lone UTF-16 surrogate is not text at all.
  if (text.includes('\u0000') || !text.isWellFormed())
    throw bad(column, raw, 'contains a NUL or an unpaired surrogate');
  switch (family) {
    case 'varchar':
      return { t: 'varchar', v: text };
    case 'varbinary': {
      const bytes = parseBytes(text);
      if (!bytes) throw bad(column, raw, 'is not valid \\x hex bytes');
      return { t: 'varbinary', v: bytes };
    }
    case 'integer': {
      const base = trinoTypeOf(column.type).base;
      if (!/^-?\d{1,20}$/.test(text)) throw bad(column, raw, `is not an integer`);
      const [lo, hi] = INT_RANGES[base]!;
      const n = BigInt(text);
      if (n < lo || n > hi) throw bad(column, raw, `is out of range for ${base}`);
      if (typeof raw === 'number' && !Number.isSafeInteger(raw))
        throw bad(column, raw, 'lost digits in JSON; send it as a string');
      return { t: 'integer', v: n.toString() };
    }
    case 'decimal':
      return { t: 'decimal', v: fitDecimal(column, text) };
    case 'double': {
      const n = text === 'NaN' ? NaN : text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : Number(text);
      if (text.trim() === '' || (Number.isNaN(n) && text !== 'NaN')) throw bad(column, raw, 'is not a number');
      return { t: 'double', v: n };
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw bad(column, raw, 'is not true or false');
      return { t: 'boolean', v: text === 'true' };
    case 'timestamp': {
      const i = parseInstant(text, column.name);
      const v = timestampValue(i.epochMs, i.subMs, timestampPrecision(column.type), rounding !== 'down');
      const finer = i.subMs.slice(Math.max(0, timestampPrecision(column.type) - 3)).replace(/0+$/, '');
      // No value of the column equals an instant finer than its precision.
      if (rounding === 'exact' && finer) throw bad(column, raw, `is finer than ${column.type}; no value can equal it`);
      return v;
    }
    case 'date':
      if (!isCalendarDate(text)) throw bad(column, raw, 'is not a date (YYYY-MM-DD)');
      return { t: 'date', v: text };
    case 'other':
      throw new ApiError('TG_BAD_OPERATOR', `${column.name} (${column.type}) cannot be compared with a value`, {
        column: column.name,
      });
  }
}

/**
 * A timestamp literal at the column's precision. Digits beyond it are rounded in the direction that keeps the
 * comparison exact (see literalFor): the literal must not carry more precision than the column, or Trino
 * casts the column and the storage can no longer evaluate the filter.
 */
function timestampValue(epochMs: number, subMs: string, precision: number, roundUp: boolean): LiteralValue {
  const keep = Math.max(0, precision - 3);
  const kept = subMs.slice(0, keep).padEnd(keep, '0');
  const dropped = subMs.slice(keep).replace(/0+$/, '');
  if (!dropped || !roundUp) return { t: 'timestamp', epochMs, subMs: kept };
  if (keep === 0) return { t: 'timestamp', epochMs: epochMs + 1, subMs: '' };
  const bumped = (BigInt(kept) + 1n).toString().padStart(keep, '0');
  return bumped.length > keep
    ? { t: 'timestamp', epochMs: epochMs + 1, subMs: '0'.repeat(keep) }
    : { t: 'timestamp', epochMs, subMs: bumped };
}

function fitDecimal(column: ColumnNode, text: string): string {
  const { precision: p, scale: s } = decimalDigits(column.type);
  const d = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!d || (d[2] === '' && !d[3])) throw bad(column, text, 'is not a decimal number');
  const intPart = d[2]!.replace(/^0+(?=\d)/, '') || '0';
  const frac = d[3] ?? '';
  if (frac.replace(/0+$/, '').length > s) throw bad(column, text, `has more than ${s} decimal places`);
  if (intPart.replace(/^0+/, '').length > p - s) throw bad(column, text, `does not fit ${column.type}`);
  // Same scale as the column, so the comparison needs no cast on the column side.
  return s > 0 ? `${d[1]}${intPart}.${frac.padEnd(s, '0').slice(0, s)}` : `${d[1]}${intPart}`;
}

/**
 * The literal for comparing `column` with a request value. `rounding` applies when the value has more
 * precision than the column: for `>=` and `<` rounding up keeps the meaning; for `>` and `<=` rounding down.
 */
export function literalFor(column: ColumnNode, raw: unknown, rounding: Rounding = 'exact'): LiteralNode {
  return { kind: 'literal', type: column.type, value: parseValue(column, raw, rounding) };
}
