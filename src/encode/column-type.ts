import type { TrinoType } from '../core/trino-types.js';
import { trinoTypeOf } from '../core/type-family.js';

/** Parses a column's type text; text that is not a type is treated as an unknown type, never an error. */
export function columnType(text: string): TrinoType {
  return trinoTypeOf(text);
}
