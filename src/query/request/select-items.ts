/** Select items: columns with PostgREST's `alias:` renaming, aggregates and time buckets, checked against the topic. */
import { ApiError } from '../../core/errors.js';
import type { SelectNode, ColumnNode } from '../tree/nodes.js';
import type { AggregateSpec } from '../tree/read-specs.js';
import { TIME_COLUMN } from '../tree/nodes.js';
import type { TopicModel } from '../tree/topic-model.js';
import { parseDuration } from './time.js';
import { typeFamily } from '../../core/type-family.js';
import { splitAlias } from './column-ref.js';
import { pathColumnForAggregate } from './json-path-column.js';

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The output name of a column: its name, or for an arrow path its last key (as PostgREST names it). */
export function outputName(c: ColumnNode): string {
  const arrowPath = c.source.kind === 'json-path' || (c.source.kind === 'decoded' && c.source.arrow);
  if (!arrowPath || !('path' in c.source)) return c.name;
  const keys = c.source.path.filter((k): k is string => typeof k === 'string');
  return keys.at(-1) ?? c.name;
}

/** A select item `[alias:]reference` (PostgREST's renaming). */
export function selectColumn(item: string, resolve: (n: string) => ColumnNode): SelectNode {
  const { alias, ref } = splitAlias(item);
  if (alias !== null && !ALIAS.test(alias)) {
    throw new ApiError('TG_BAD_REQUEST', `select: the alias ${JSON.stringify(alias)} must match ${ALIAS.source}`, {
      parameter: 'select',
    });
  }
  const column = resolve(ref);
  return { kind: 'select-column', column, as: alias ?? outputName(column) };
}

const NUMERIC = new Set(['integer', 'decimal', 'double']);

export function aggregateNode(topic: TopicModel, spec: AggregateSpec, resolve: (n: string) => ColumnNode): SelectNode {
  const column = spec.field === undefined ? null : pathColumnForAggregate(resolve(spec.field), spec.fn);
  const as = spec.as ?? (column ? `${spec.fn}_${outputName(column)}` : spec.fn);
  const needs = (ok: boolean, what: string) => {
    if (!ok) throw new ApiError('TG_BAD_VALUE', `${spec.fn}: ${what}`, { fn: spec.fn, field: spec.field });
  };
  needs(column !== null || spec.fn === 'count', 'needs a field');
  const family = column ? typeFamily(column.type) : 'other';
  if (spec.fn === 'sum' || spec.fn === 'avg' || spec.fn === 'approx_percentile') {
    needs(NUMERIC.has(family), `${column?.name} (${column?.type}) is not numeric`);
  }
  if (spec.fn === 'approx_percentile')
    needs(typeof spec.p === 'number' && spec.p > 0 && spec.p < 1, 'p must be between 0 and 1');
  if (spec.fn === 'latest' || spec.fn === 'earliest') needs(topic.time !== null, `${topic.id} has no ${TIME_COLUMN}`);
  return { kind: 'aggregate', fn: spec.fn, column, p: spec.p, as, time: topic.time };
}

export function bucketNode(topic: TopicModel, spec: { bucket: string; as?: string }): SelectNode {
  if (!topic.time) throw new ApiError('TG_BAD_VALUE', `bucket: ${topic.id} has no ${TIME_COLUMN}`);
  const ms = parseDuration(spec.bucket, 'bucket');
  if (ms < 1 || ms > 366 * 86_400_000) throw new ApiError('TG_BAD_VALUE', 'bucket must be from 1ms to 366d');
  return { kind: 'bucket', column: topic.time, ms, as: spec.as ?? 'bucket' };
}

export function uniqueNames(select: readonly SelectNode[]): void {
  const seen = new Set<string>();
  for (const s of select) {
    if (seen.has(s.as))
      throw new ApiError('TG_BAD_REQUEST', `select: the output name ${JSON.stringify(s.as)} is used twice`);
    seen.add(s.as);
  }
}
