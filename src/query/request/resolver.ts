/** A request's column reference resolved against the topic, before anything is quoted. */
import { ApiError } from '../../core/errors.js';
import type { ColumnNode } from '../tree/nodes.js';
import type { TopicModel } from '../tree/topic-model.js';
import { parseColumnRef } from './column-ref.js';
import { jsonPathColumn } from './json-path-column.js';
import { decodedRef, undecodedField } from './decoded-column.js';

/**
 * Resolves a column reference of a request against the topic: a column or expanded field, double-quoted or not, or
 * an arrow path into a JSON-holding one (column-ref.ts, json-path-column.ts).
 */
export function resolver(topic: TopicModel): (name: string) => ColumnNode {
  return (text) => {
    const ref = parseColumnRef(text);
    const name = ref.name;
    // A field of a decoded Avro key or value (`value.amount`, `value->customer->country`), unless a column has the name.
    const decoded = topic.columns.has(text) ? null : decodedRef(topic.decoded, text, ref);
    if (decoded) return decoded;
    const c = topic.columns.get(name);
    if (c && ref.path.length) return jsonPathColumn(c, ref);
    if (!c) {
      undecodedField(topic, text);
      throw new ApiError('TG_UNKNOWN_COLUMN', `${topic.id} has no column ${JSON.stringify(name)}`, {
        column: name,
        available: [...topic.columns.keys()],
      });
    }
    return c;
  };
}
