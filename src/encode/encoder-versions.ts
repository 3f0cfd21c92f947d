/**
 * Each format's output version: part of a settled window's ETag (http/read-cache.ts), so a change in the bytes an
 * encoder writes for the same rows gives cached responses a new tag. Bump a format's number in the change that
 * alters its bytes (layout, text representation, Arrow or Parquet schema, completeness marker).
 */
import type { FormatName } from './encoder-registry.js';

export const ENCODER_VERSIONS = {
  json: 1,
  ndjson: 1,
  csv: 2,
  arrow: 1,
  parquet: 1,
} as const satisfies Record<FormatName, number>;
