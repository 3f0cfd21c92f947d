/**
 * CSV has no nesting: a decoded record becomes one column per leaf field, named by its path (`value.amount`,
 * `value.customer.country`), recursing into records (rows) only; arrays and maps stay one cell (as JSON, the CSV
 * encoder's rule for them). A null record gives null leaves.
 */
import type { ResultColumn } from '../../core/result-stream.js';
import { formatTrinoType, parseTrinoType, rowFields, type TrinoType } from '../../core/trino-types.js';

export interface Flattening {
  columns: ResultColumn[];
  /** The row value (an array in field order, or null) -> the leaves' values, in `columns` order. */
  leaves(v: unknown): unknown[];
}

export function flattenRow(name: string, typeText: string): Flattening {
  return flatten(name, parseTrinoType(typeText));
}

function flatten(name: string, type: TrinoType): Flattening {
  if (type.base !== 'row') {
    return { columns: [{ name, type: formatTrinoType(type) }], leaves: (v) => [v ?? null] };
  }
  const fields = rowFields(type).map((f, i) => flatten(`${name}.${f.name ?? `_col${i}`}`, f.type));
  const width = fields.reduce((n, f) => n + f.columns.length, 0);
  return {
    columns: fields.flatMap((f) => f.columns),
    leaves: (v) => {
      if (v === null || v === undefined) return new Array<unknown>(width).fill(null);
      const values = v as unknown[];
      return fields.flatMap((f, i) => f.leaves(values[i]));
    },
  };
}
