/** What a topic offers to a query: its table and every column a request may name, as the planner sees it. */
import type { ColumnNode, SourceNode } from './nodes.js';

/** A column as the live catalog lists it. */
export interface ColumnInfo {
  name: string;
  /** Trino type text, e.g. `varbinary`, `timestamp(3)`. */
  type: string;
}

/** A served table as the live catalog lists it. */
export interface TableInfo {
  /** The topic's id in URLs: the table name when one schema is served, else `<schema>:<table>`. */
  id: string;
  schema: string;
  table: string;
  kind: 'topic' | 'table';
  columns: ColumnInfo[];
}

/** What a topic offers to a query: its table and every column a request may name. */
export interface TopicModel {
  id: string;
  source: SourceNode;
  /** Table columns and expanded fields, by name. */
  columns: ReadonlyMap<string, ColumnNode>;
  /** The broker time column, when the table has one. */
  time: ColumnNode | null;
  /**
   * The Trino types of the decoded Avro key / value (their reader schemas, fetched for this request): their fields
   * are columns too (request/decoded-column.ts). Absent when nothing is decoded (or `decode=false`).
   */
  decoded?: ReadonlyMap<'key' | 'value', string>;
}
