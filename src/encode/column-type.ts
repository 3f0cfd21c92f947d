import { parseTrinoType, type TrinoType } from '../core/trino-types.js';

/** Parses a column's type text; text that is not a type is treated as an unknown type, never an error. */
export function columnType(text: string): TrinoType {
  try {
    return parseTrinoType(text);
  } catch {
    return { base: text, args: [] };
  }
}
