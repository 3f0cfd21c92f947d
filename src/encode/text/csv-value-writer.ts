/**
 * Per-type CSV field writers: each writes its whole field into the page through csv-field.ts (the one CSV quoting
 * rule). Values follow the text rules of json-value-writer.ts; nested values (array, map, row) are their JSON
 * text, as a field like any text.
 */
import { knownBase, type TrinoType } from '../../core/trino-types.js';
import { CSV_PLAIN, csvFieldFrom, writeCsvField } from './csv-field.js';
import { JsonScanner } from './validating-json-scanner.js';
import { writeJsonTypeCsv } from './json-type-text.js';
import { asString, generic, jsonValueWriter, type ValueWriter } from './json-value-writer.js';
import { TimestampTzParser } from '../../core/trino-timestamp.js';
import { timestampToIso, timestampTzToIso, writeIsoTimestamp } from './timestamp-text.js';
import { VarbinaryText } from './varbinary-text.js';

const timestampCsv: ValueWriter = (v, out) => {
  const s = asString(v);
  if (!writeIsoTimestamp(out, s, CSV_PLAIN, false)) writeCsvField(out, timestampToIso(s));
};

/** The CSV field writer for a Trino type (nested values are their JSON text, quoted as any text). */
export function csvValueWriter(type: TrinoType): ValueWriter {
  const base = knownBase(type);
  switch (base) {
    case null:
    case 'unknown':
      return (v, out) => writeCsvField(out, typeof v === 'string' ? v : generic(v));
    case 'array':
    case 'map':
    case 'row': {
      const json = jsonValueWriter(type);
      return (v, out) => {
        const start = out.end;
        json(v, out);
        csvFieldFrom(out, start);
      };
    }
    case 'boolean':
      return (v, out) => out.writeAscii(v === true || v === 'true' ? 'true' : 'false');
    case 'varbinary': {
      const varbinary = new VarbinaryText();
      return (v, out) => varbinary.writeCsv(out, asString(v));
    }
    case 'json': {
      const scanner = new JsonScanner();
      return (v, out) => writeJsonTypeCsv(out, asString(v), scanner);
    }
    case 'timestamp':
      return timestampCsv;
    case 'timestamp with time zone': {
      const parser = new TimestampTzParser();
      return (v, out) => writeCsvField(out, timestampTzToIso(String(v), parser));
    }
    default:
      // A number's text never needs quotes; anything else is text.
      return (v, out) => (typeof v === 'number' ? out.writeAscii(String(v)) : writeCsvField(out, String(v)));
  }
}
