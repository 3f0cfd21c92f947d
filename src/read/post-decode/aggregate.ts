/**
 * Aggregation of decoded rows in the post-decode stage (query/passes/post-decode-split.ts `gather`), with Trino's result types and exact
 * arithmetic: integer sums as bigint, decimal sums and averages on the unscaled integer (sum: decimal(38,s); avg:
 * the column's decimal, rounded half up), doubles as doubles. `approx_distinct` and `approx_percentile` are exact
 * here (nearest rank). Every group, distinct value and percentile value held counts towards the caps: past
 * `TOPICGATE_GATEWAY_MAX_ROWS` of them, or past the bytes the response may hold (`limits.maxGatewayBytes`, its
 * estimate by read/retained-bytes.ts), the response is refused naming the cap.
 */
import { ApiError } from '../../core/errors.js';
import type { SelectNode } from '../../query/tree/nodes.js';
import { epochOfTrinoTimestamp, trinoTimestampText } from '../../core/trino-timestamp.js';
import { decimalDigits, timestampPrecision, typeFamily, type TypeFamily } from '../../core/type-family.js';
import { compareKeys, keyOf, type Key, type Reading } from './evaluate.js';
import type { ColumnNode } from '../../query/tree/nodes.js';
import { retainedBytes } from '../retained-bytes.js';
import type { MemoryAccount } from '../gateway-memory.js';

type Row = readonly unknown[];

/** Bytes of a percentile's number in its array (a heap number and its slot). */
const NUMBER_BYTES = 24;

/**
 * Counts what the post-decode stage holds for one response against the caps: rows or groups
 * (`TOPICGATE_GATEWAY_MAX_ROWS`) and bytes, held through the response's account (`limits.maxGatewayBytes`).
 */
export class Held {
  private n = 0;
  private bytes = 0;
  constructor(
    private readonly max: number,
    private readonly memory: MemoryAccount,
  ) {}

  /** `k` more rows, groups or values, holding `bytes` more. */
  add(k: number, bytes: number): void {
    this.n += k;
    if (this.n > this.max) {
      throw new ApiError(
        'TG_TOO_EXPENSIVE',
        `sorting or aggregating decoded fields holds more than ${this.max} rows or groups (TOPICGATE_GATEWAY_MAX_ROWS): narrow since/until or add filters the storage takes`,
        { limit: 'TOPICGATE_GATEWAY_MAX_ROWS', max: this.max },
      );
    }
    this.memory.hold(bytes, 'sorting or aggregating decoded fields');
    this.bytes += bytes;
  }

  /** Gives back every byte held (the rows were handed on, or the response ended). */
  release(): void {
    this.memory.release(this.bytes);
    this.bytes = 0;
  }
}

interface Accumulator {
  add(row: Row): void;
  result(): unknown;
}

const scaleOf = (type: string) => decimalDigits(type).scale;

/** A decimal's text as its unscaled integer at `scale`. */
function unscaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [int = '0', frac = ''] = text.replace(/^[-+]/, '').split('.');
  const n = BigInt(int + frac.padEnd(scale, '0').slice(0, scale));
  return negative ? -n : n;
}

function decimalText(n: bigint, scale: number): string {
  const negative = n < 0n;
  const digits = (negative ? -n : n).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

/** A bigint as the encoders take it: a number when it is safe, else its digits. */
const bigintValue = (n: bigint): number | string =>
  n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();

/** The output type of an aggregate over a column of `type` (Trino's). */
export function aggregateType(s: Extract<SelectNode, { kind: 'aggregate' }>, type: string | null): string {
  const family = type ? typeFamily(type) : 'other';
  switch (s.fn) {
    case 'count':
    case 'count_distinct':
    case 'approx_distinct':
      return 'bigint';
    case 'sum':
      return family === 'integer' ? 'bigint' : family === 'decimal' ? `decimal(38,${scaleOf(type!)})` : 'double';
    case 'avg':
      return family === 'decimal' ? type! : 'double';
    case 'approx_percentile':
      return family === 'integer' ? 'bigint' : 'double';
    default:
      return type ?? 'varchar';
  }
}

/** What every accumulator of one aggregate reads: its value (absent: NULL), the value's family and scale. */
interface Input {
  present: (row: Row) => unknown;
  family: TypeFamily;
  scale: number;
}

/** A fresh accumulator for one group. */
export function accumulator(
  s: Extract<SelectNode, { kind: 'aggregate' }>,
  value: Reading | null,
  time: Reading | null,
  held: Held,
): () => Accumulator {
  const get = value?.get ?? (() => 1);
  const input: Input = {
    present: (row) => {
      const v = get(row);
      return v === null || v === undefined ? undefined : v;
    },
    family: value ? typeFamily(value.type) : 'other',
    scale: value ? scaleOf(value.type) : 0,
  };
  switch (s.fn) {
    case 'count':
      return () => {
        let n = 0;
        return { add: (row) => void (input.present(row) !== undefined && n++), result: () => n };
      };
    case 'count_distinct':
    case 'approx_distinct':
      return () => distinctCount(input, held);
    case 'sum':
    case 'avg':
      return () => sumOrAvg(s.fn === 'sum', input);
    case 'min':
    case 'max':
      return () => extreme(s.fn === 'min' ? -1 : 1, input);
    case 'approx_percentile':
      return () => percentile(s.p ?? 0.5, input, held);
    case 'latest':
    case 'earliest':
      return () => latest(s.fn === 'earliest' ? -1 : 1, get, time);
  }
}

function distinctCount({ present, family }: Input, held: Held): Accumulator {
  const seen = new Set<string>();
  return {
    add: (row) => {
      const v = present(row);
      if (v === undefined) return;
      const k = String(keyOf(family, v));
      if (!seen.has(k)) {
        held.add(1, retainedBytes(k));
        seen.add(k);
      }
    },
    result: () => seen.size,
  };
}

function sumOrAvg(sum: boolean, { present, family, scale }: Input): Accumulator {
  let n = 0;
  let exact = 0n;
  let float = 0;
  return {
    add: (row) => {
      const v = present(row);
      if (v === undefined) return;
      n++;
      if (family === 'integer') exact += BigInt(v as number | string);
      else if (family === 'decimal') exact += unscaled(String(v), scale);
      else float += Number(v);
    },
    result: () => {
      if (n === 0) return null;
      if (sum) {
        if (family === 'integer') return bigintValue(exact);
        return family === 'decimal' ? decimalText(exact, scale) : float;
      }
      if (family === 'decimal') {
        // Half up, away from zero, as Trino rounds a decimal average.
        const sign = exact < 0n ? -1n : 1n;
        const q = (2n * sign * exact + BigInt(n)) / (2n * BigInt(n));
        return decimalText(sign * q, scale);
      }
      return family === 'integer' ? Number(exact) / n : float / n;
    },
  };
}

/** min (sign -1) or max (sign 1), in the family's order. */
function extreme(sign: number, { present, family }: Input): Accumulator {
  let best: unknown;
  let bestKey: Key | undefined;
  return {
    add: (row) => {
      const v = present(row);
      if (v === undefined) return;
      const k = keyOf(family, v);
      if (bestKey === undefined || compareKeys(k, bestKey) * sign > 0) [best, bestKey] = [v, k];
    },
    result: () => best ?? null,
  };
}

function percentile(p: number, { present }: Input, held: Held): Accumulator {
  const values: number[] = [];
  return {
    add: (row) => {
      const v = present(row);
      if (v === undefined) return;
      held.add(1, NUMBER_BYTES);
      values.push(Number(v));
    },
    result: () => {
      if (values.length === 0) return null;
      values.sort((a, b) => a - b);
      const at = Math.max(0, Math.ceil(p * values.length) - 1);
      return values[at];
    },
  };
}

/** The value at the latest (sign 1) or earliest (sign -1) broker time. */
function latest(sign: number, get: (row: Row) => unknown, time: Reading | null): Accumulator {
  let best: unknown = null;
  let bestAt: string | undefined;
  return {
    add: (row) => {
      const at = time?.get(row);
      if (at === null || at === undefined) return;
      const k = keyOf('timestamp', at) as string;
      if (bestAt === undefined || compareKeys(k, bestAt) * sign > 0) {
        bestAt = k;
        best = get(row) ?? null;
      }
    },
    result: () => best,
  };
}

/** The start of the UTC bucket of `ms` holding a broker time, as Trino's text at the column's precision. */
export function bucketOf(column: ColumnNode, ms: number): (v: unknown) => unknown {
  const digits = timestampPrecision(column.type);
  return (v) => {
    if (v === null || v === undefined) return null;
    const t = epochOfTrinoTimestamp(String(v));
    const text = trinoTimestampText(t - (((t % ms) + ms) % ms));
    if (digits >= 3) return text.padEnd(text.length + digits - 3, '0');
    return text.slice(0, digits === 0 ? -4 : digits - 3);
  };
}
