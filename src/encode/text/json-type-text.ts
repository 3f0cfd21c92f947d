/**
 * Values of the Trino `json` type in the text formats: embedded as JSON (on one line) when the text is JSON, else
 * written as text. Unlike varbinary, any JSON value (scalars too) is embedded: the column is typed JSON.
 * The writers take the scanner of the value writer that calls them (validating-json-scanner.ts: no state is shared).
 */
import { Buffer } from 'node:buffer';
import { csvFieldFrom } from './csv-field.js';
import { minifyBytes, minifyJson } from './json-minify.js';
import { JSON_LINES, type JsonScanner } from './validating-json-scanner.js';
import type { PageBuffer } from './page-buffer.js';

/** Writes text of the Trino `json` type as JSON: embedded when it is JSON (on one line), else a JSON string. */
export function writeJsonTypeJson(out: PageBuffer, text: string, scanner: JsonScanner): void {
  const start = out.end;
  out.write(text);
  const r = scanner.scan(out.bytes, start, out.end);
  if (r < 0) {
    out.end = start;
    out.write(JSON.stringify(text));
  } else if (r === JSON_LINES) out.end = minifyBytes(out.bytes, start, out.end, start);
}

/** Writes text of the Trino `json` type as a CSV field: the JSON text (on one line), or the text if not JSON. */
export function writeJsonTypeCsv(out: PageBuffer, text: string, scanner: JsonScanner): void {
  const start = out.end;
  out.write(text);
  if (scanner.scan(out.bytes, start, out.end) === JSON_LINES) out.end = minifyBytes(out.bytes, start, out.end, start);
  csvFieldFrom(out, start);
}

/** Text of the Trino `json` type ready to embed (minified when it has line breaks), or null when it is not JSON. */
export function jsonTypeText(text: string, scanner: JsonScanner): string | null {
  const bytes = Buffer.from(text, 'utf8');
  const r = scanner.scan(bytes, 0, bytes.length);
  return r < 0 ? null : r === JSON_LINES ? minifyJson(text) : text;
}
