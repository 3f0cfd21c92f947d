/** Column nodes for planner and compiler tests: a table column, and a JSON field of `value` at a one-key path. */
import type { ColumnNode } from '../../src/query/nodes.js';

export const table = (name: string, type: string): ColumnNode => ({
  kind: 'column',
  name,
  type,
  source: { kind: 'table' },
});

export const json = (name: string, type: string): ColumnNode => ({
  kind: 'column',
  name,
  type,
  source: { kind: 'json', from: 'value', path: [name] },
});
