/**
 * The post-decode side of a read that names decoded Avro fields (query/passes/post-decode-split.ts): reading a
 * column of a decoded row, comparing values of a Trino type as Trino does, and evaluating a filter with SQL's three-valued logic (a
 * comparison with NULL is unknown, and an unknown row is not kept). Values are as the encoders take them
 * (core/result-stream.ts): bigint a number or its digits, decimal and timestamp as text, varbinary base64 (or `\x`
 * hex, for decoded Avro bytes in text formats).
 */
import { ApiError } from '../../core/errors.js';
import type { ColumnNode, LiteralNode, PredicateNode } from '../../query/tree/nodes.js';
import { trinoTimestampText } from '../../core/trino-timestamp.js';
import { arrayElementType, mapValueType, rowFieldsOf, typeFamily, type TypeFamily } from '../../core/type-family.js';
import type { ResultColumn } from '../../core/result-stream.js';

type Row = readonly unknown[];
/** A value reduced to something `<` orders as Trino orders the type. */
export type Key = number | bigint | string;
export type Read = (row: Row) => unknown;

/** A column read from a decoded row: how, and its type there (a decoded field's type follows the response's). */
export interface Reading {
  get: Read;
  type: string;
}

/** How a column of the Trino query (or a decoded field) is read from a decoded row with these columns. */
export function reader(columns: readonly ResultColumn[], extra: readonly { column: ColumnNode; as: string }[]) {
  const index = (name: string) => {
    const i = columns.findIndex((c) => c.name === name);
    if (i < 0) throw new Error(`the post-decode stage reads ${name}, which the query does not return`);
    return i;
  };
  return (c: ColumnNode): Reading => {
    const src = c.source;
    if (src.kind !== 'decoded') {
      const name =
        src.kind === 'table' ? c.name : extra.find((e) => e.column.name === c.name && e.column.type === c.type)!.as;
      const i = index(name);
      return { get: (row) => row[i], type: columns[i]!.type };
    }
    const i = index(src.column);
    let type = columns[i]!.type;
    const steps: ((v: unknown) => unknown)[] = [];
    for (const key of src.path) {
      const fields = rowFieldsOf(type);
      if (fields) {
        const at = fields.findIndex((f) => f.name === key);
        if (at < 0)
          throw new ApiError('TG_SCHEMA_REGISTRY', `${c.name}: the reader schema has no field ${String(key)}`);
        type = fields[at]!.type;
        steps.push((v) => (v as unknown[])[at]);
      } else if (arrayElementType(type) !== null) {
        type = arrayElementType(type)!;
        steps.push((v) => (v as unknown[])[key as number]);
      } else {
        type = mapValueType(type) ?? type;
        steps.push((v) => (Object.hasOwn(v as object, key) ? (v as Record<string, unknown>)[key as string] : null));
      }
    }
    const get = (row: Row) => {
      let v = row[i];
      for (const s of steps) {
        if (v === null || v === undefined) return null;
        v = s(v);
      }
      return v ?? null;
    };
    return { get, type };
  };
}

const DECIMAL_SCALE = 38;

/** A decimal's text as an integer scaled by 10^38, so decimals of any scale compare exactly. */
function decimalKey(text: string): bigint {
  const negative = text.startsWith('-');
  const [int = '0', frac = ''] = text.replace(/^[-+]/, '').split('.');
  const n = BigInt(int + frac.padEnd(DECIMAL_SCALE, '0').slice(0, DECIMAL_SCALE));
  return negative ? -n : n;
}

/** Bytes as lowercase hex, whose text order is the bytes' order. */
function bytesKey(v: unknown): string {
  const s = String(v);
  return s.startsWith('\\x') ? s.slice(2).toLowerCase() : Buffer.from(s, 'base64').toString('hex');
}

/** A timestamp's text with its fraction at 12 digits: text order is time order (years 1000 to 9999). */
function timestampKey(text: string): string {
  const [whole = '', frac = ''] = text.split('.');
  return `${whole}.${frac.padEnd(12, '0')}`;
}

/** The ordering key of a non-null value of a type family. */
export function keyOf(family: TypeFamily, v: unknown): Key {
  switch (family) {
    case 'integer':
      return typeof v === 'number' ? BigInt(v) : BigInt(v as string);
    case 'decimal':
      return decimalKey(String(v));
    case 'double':
      return typeof v === 'number' ? v : Number(v);
    case 'boolean':
      return v === true ? 1 : 0;
    case 'timestamp':
      return timestampKey(String(v));
    case 'varbinary':
      return bytesKey(v);
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/** The key of a literal, in the representation keyOf gives its column's values. */
export function literalKey(lit: LiteralNode): Key {
  const v = lit.value;
  switch (v.t) {
    case 'integer':
      return BigInt(v.v);
    case 'decimal':
      return decimalKey(v.v);
    case 'double':
      return v.v;
    case 'boolean':
      return v.v ? 1 : 0;
    case 'timestamp':
      return timestampKey(`${trinoTimestampText(v.epochMs)}${v.subMs}`);
    case 'varbinary':
      return v.v.toString('hex');
    default:
      return v.v;
  }
}

/** Orders two keys: strings by code point (as Trino orders varchar), numbers and bigints numerically. */
export function compareKeys(a: Key, b: Key): number {
  if (typeof a === 'string' && typeof b === 'string') {
    if (a === b) return 0;
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n;) {
      const x = a.codePointAt(i)!;
      const y = b.codePointAt(i)!;
      if (x !== y) return x < y ? -1 : 1;
      i += x > 0xffff ? 2 : 1;
    }
    return a.length < b.length ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

type Truth = boolean | null;
type Test = (row: Row) => Truth;

const COMPARE: Record<string, (c: number) => boolean> = {
  eq: (c) => c === 0,
  neq: (c) => c !== 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
};

/** SQL LIKE as a regular expression (`\` escapes when the pattern says so). */
function likeRegex(pattern: string, escapes: boolean, caseInsensitive: boolean): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (escapes && c === '\\' && i + 1 < pattern.length) out += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '%') out += '.*';
    else if (c === '_') out += '.';
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, caseInsensitive ? 'isu' : 'su');
}

function unsupported(c: ColumnNode, what: string): ApiError {
  return new ApiError('TG_BAD_OPERATOR', `${c.name}: ${what} is not evaluated on decoded fields`, { column: c.name });
}

type Col = (c: ColumnNode) => { get: (row: Row) => unknown; family: TypeFamily };

/**
 * Compiles a filter over decoded rows; an operator the post-decode stage cannot evaluate is a 400 before any row is
 * read.
 */
export function compileTest(p: PredicateNode, read: (c: ColumnNode) => Reading, decoded: ReadonlySet<string>): Test {
  const col: Col = (c) => {
    if (c.source.kind === 'table' && decoded.has(c.name)) {
      throw new ApiError(
        'TG_BAD_REQUEST',
        `${c.name}: a filter ORed with decoded fields cannot compare the raw ${c.name}`,
        { column: c.name },
      );
    }
    return { get: read(c).get, family: typeFamily(c.type) };
  };
  switch (p.kind) {
    case 'compare':
      return compareTest(p, col);
    case 'in':
      return inTest(p, col);
    case 'like':
    case 'match':
      return patternTest(p, col);
    case 'is':
      return isTest(p, col);
    case 'array':
      throw unsupported(p.column, `${p.op} (array containment)`);
    case 'not': {
      const inner = compileTest(p.inner, read, decoded);
      if (p.inner.kind === 'is') return (row) => !inner(row);
      return (row) => {
        const t = inner(row);
        return t === null ? null : !t;
      };
    }
    case 'and':
    case 'or':
      return logicTest(
        p.kind,
        p.items.map((i) => compileTest(i, read, decoded)),
      );
    case 'anchor':
      throw new Error('a paging anchor is Trino’s, never the post-decode stage’s');
  }
}

function compareTest(p: Extract<PredicateNode, { kind: 'compare' }>, col: Col): Test {
  const { get, family } = col(p.column);
  const lit = literalKey(p.value);
  if (p.op === 'isdistinct') {
    return (row) => {
      const v = get(row);
      return v === null || v === undefined ? true : compareKeys(keyOf(family, v), lit) !== 0;
    };
  }
  const ok = COMPARE[p.op]!;
  return (row) => {
    const v = get(row);
    return v === null || v === undefined ? null : ok(compareKeys(keyOf(family, v), lit));
  };
}

function inTest(p: Extract<PredicateNode, { kind: 'in' }>, col: Col): Test {
  const { get, family } = col(p.column);
  const keys = p.values.map(literalKey);
  return (row) => {
    const v = get(row);
    if (v === null || v === undefined) return keys.length ? null : false;
    const k = keyOf(family, v);
    return keys.some((x) => compareKeys(k, x) === 0);
  };
}

function patternTest(p: Extract<PredicateNode, { kind: 'like' | 'match' }>, col: Col): Test {
  const { get, family } = col(p.column);
  if (family !== 'varchar') throw unsupported(p.column, `${p.kind} on ${p.column.type}`);
  let re: RegExp | null;
  try {
    re =
      p.kind === 'like'
        ? likeRegex(p.pattern, p.escape, p.caseInsensitive)
        : new RegExp(p.pattern, p.caseInsensitive ? 'iu' : 'u');
  } catch {
    re = null; // as Trino's try(regexp_like(...)): a pattern the engine refuses matches no row
  }
  return (row) => {
    const v = get(row);
    return v === null || v === undefined || !re ? null : re.test(String(v));
  };
}

function isTest(p: Extract<PredicateNode, { kind: 'is' }>, col: Col): Test {
  const { get } = col(p.column);
  const what = p.what;
  return (row) => {
    const v = get(row) ?? null;
    if (what === 'null' || what === 'unknown') return v === null;
    if (what === 'not_null') return v !== null;
    return v === (what === 'true');
  };
}

/** SQL's three-valued AND / OR: a deciding value ends it, an unknown item makes an undecided result unknown. */
function logicTest(kind: 'and' | 'or', items: readonly Test[]): Test {
  const stop = kind === 'or';
  return (row) => {
    let unknown = false;
    for (const t of items) {
      const v = t(row);
      if (v === stop) return stop;
      if (v === null) unknown = true;
    }
    return unknown ? null : !stop;
  };
}
