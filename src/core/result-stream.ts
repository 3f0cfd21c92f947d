/**
 * What every encoder consumes: the columns of a Trino result and its rows, batch by batch, exactly as the
 * Trino client protocol delivers them (after the gateway's lossless JSON parse):
 * - bigint: a JS number when it is a safe integer, otherwise a string of its exact decimal digits;
 * - varbinary: base64 text; decimal: its text ("12.30"); timestamp(p): "2026-11-01 00:00:00.000" (UTC, no zone);
 * - timestamp(p) with time zone: "2026-11-01 00:00:00.000 UTC"; date: "2026-11-01";
 * - double/real: a number, or the strings "NaN", "Infinity", "-Infinity";
 * - array: a JS array; row: a JS array of field values in field order; map: a JS object; json: its text;
 * - any value may be null.
 * Batches are pulled one at a time: the next Trino page is fetched only when the encoder asks for it. A read that
 * asked for text rows (`QueryOptions.rowText`) may get batches as the JSON text Trino sent (text-rows.ts).
 */
import type { RowBatch } from './text-rows.js';

export interface ResultColumn {
  name: string;
  /** Trino type text, e.g. `varbinary`, `decimal(12,2)`, `array(row(key varchar, value varbinary))`. */
  type: string;
}

export interface ResultStream {
  queryId: string;
  columns: readonly ResultColumn[];
  batches: AsyncIterable<RowBatch>;
}
