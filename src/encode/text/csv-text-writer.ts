/**
 * The CSV writers of the transcoder (row-transcoder.ts): each writes one field of its Trino type straight from the
 * JSON text Trino sent, exactly as the CSV value writer of its type (csv-value-writer.ts) writes the value
 * JSON.parse makes of that text, or returns -1 for the value path to write it (see json-text-writer.ts).
 */
import { knownBase, type TrinoType } from '../../core/trino-types.js';
import { base64Bytes, decodeBase64Into } from './base64-bytes.js';
import { CSV_SPECIAL, csvFieldFrom } from './csv-field.js';
import { jsonTextWriter, type TextWriter } from './json-text-writer.js';
import { booleanEnd, copyInto, plainIntegerEnd, plainStringEnd } from './json-token.js';
import { ISO_JSON_PLAIN, isoTimestampFrom } from './timestamp-text.js';
import { csvRoom, VarbinaryText } from './varbinary-text.js';

/** A string's text as one field (quoted when RFC 4180 requires it), or an integer's digits. */
const textField: TextWriter = (src, i, out) => {
  if (src[i] !== 0x22) {
    const end = plainIntegerEnd(src, i);
    if (end > 0) copyInto(out, src, i, end);
    return end;
  }
  const end = plainStringEnd(src, i);
  if (end < 0) return -1;
  const start = out.end;
  copyInto(out, src, i + 1, end - 1);
  csvFieldFrom(out, start);
  return end;
};

const booleanField: TextWriter = (src, i, out) => {
  const end = booleanEnd(src, i);
  if (end > 0) copyInto(out, src, i, end);
  return end;
};

/** Per byte: 1 when a timestamp's text may hold it to be copied into a field that needs no quotes. */
const ISO_CSV_PLAIN = ISO_JSON_PLAIN.map((x, c) => (x === 1 && CSV_SPECIAL[c] === 0 ? 1 : 0));

/** `timestamp(p)` text as ISO-8601 UTC, a field that never needs quotes (or the value path). */
const timestampField: TextWriter = (src, i, out) => isoTimestampFrom(src, i, out, ISO_CSV_PLAIN, false);

function varbinaryField(): TextWriter {
  const varbinary = new VarbinaryText();
  return (src, i, out) => {
    if (src[i] !== 0x22) return -1;
    const close = src.indexOf(0x22, i + 1);
    if (close < 0) return -1;
    out.ensure(csvRoom(base64Bytes(i + 1, close)));
    const to = decodeBase64Into(src, i + 1, close, out.bytes, out.end);
    if (to < 0) return -1;
    varbinary.placeCsv(out, to);
    return close + 1;
  };
}

/** A nested value: its JSON text as a field like any text. */
function nestedField(json: TextWriter | null): TextWriter | null {
  if (!json) return null;
  return (src, i, out) => {
    const start = out.end;
    const end = json(src, i, out);
    if (end > 0) csvFieldFrom(out, start);
    return end;
  };
}

/** The CSV text writer of a Trino type, or null when its values always take the value path. */
export function csvTextWriter(type: TrinoType): TextWriter | null {
  const base = knownBase(type);
  switch (base) {
    case null:
    case 'unknown':
    case 'json':
    case 'timestamp with time zone':
    case 'map':
    case 'real':
    case 'double':
      return null;
    case 'array':
    case 'row':
      return nestedField(jsonTextWriter(type));
    case 'boolean':
      return booleanField;
    case 'varbinary':
      return varbinaryField();
    case 'timestamp':
      return timestampField;
    default:
      return textField;
  }
}
