/**
 * The served topics as the live catalog lists them. Every name a request uses is looked up here before it is
 * quoted into SQL (quoting is the second line of defence). Listings are cached briefly: Trino's metadata is
 * cheap but not free, and a topic's columns rarely change. A listing past its time is still answered for a while
 * (STALE_FACTOR times as long) while the next one loads, so no request waits for Trino's metadata once one listing
 * has loaded (a 304 of a settled window runs no Trino query at all); older than that, a request waits.
 */
import { topicNotFound } from '../core/errors.js';
import type { Config } from '../config/config.js';
import { quoteIdent, stringLiteral } from '../query/sql/sql-text.js';
import type { TrinoPort } from '../trino/trino-port.js';
import { expansionColumns } from '../blob/json/expansion.js';
import { TIME_COLUMN, type ColumnNode } from '../query/tree/nodes.js';
import type { ColumnInfo, TableInfo, TopicModel } from '../query/tree/topic-model.js';
import { isTimestamp } from '../core/type-family.js';

/** The columns that make a table a topic table (VAST_TOPIC_TABLES.md); `headers` may be absent or any array. */
const TOPIC_LAYOUT: Record<string, (type: string) => boolean> = {
  key: (t) => t === 'varbinary',
  value: (t) => t === 'varbinary',
  timestamp_broker: isTimestamp,
};

export function isTopicLayout(columns: readonly ColumnInfo[]): boolean {
  return Object.entries(TOPIC_LAYOUT).every(([name, ok]) => columns.some((c) => c.name === name && ok(c.type)));
}

/** A name as it may appear in a URL: anything the connector gives special meaning to is rejected outright. */
export function isPlausibleTopicId(id: string): boolean {
  return id.length > 0 && id.length <= 512 && !/["\s$\u0000]/.test(id);
}

/** Catalog lookups run as the gateway's own user, tagged apart from the reads they serve. */
const CATALOG_QUERY = { clientTags: ['catalog'] } as const;
/** A listing is answered while the next one loads until it is this many times its time to live old. */
const STALE_FACTOR = 6;

export class TopicCatalog {
  private cache: { at: number; tables: Map<string, TableInfo> } | undefined;
  private loading: Promise<Map<string, TableInfo>> | undefined;
  /** Each listed table's model, built once per listing (a new listing has new TableInfo objects). */
  private readonly models = new WeakMap<TableInfo, TopicModel>();

  constructor(
    private readonly trino: TrinoPort,
    private readonly config: Pick<Config, 'catalog' | 'schemas' | 'topics'>,
    private readonly ttlMs = 10_000,
  ) {}

  /** Fails with a one-line message when the catalog or a schema does not exist. */
  async verify(): Promise<void> {
    const { rows } = await this.trino
      .all(`SELECT schema_name FROM ${quoteIdent(this.config.catalog)}.information_schema.schemata`, CATALOG_QUERY)
      .catch((err: unknown) => {
        if ((err as { info?: { errorName?: string } }).info?.errorName === 'CATALOG_NOT_FOUND') {
          throw new Error(`TOPICGATE_CATALOG=${this.config.catalog}: Trino has no such catalog`);
        }
        throw err;
      });
    const have = new Set(rows.map((r) => r[0] as string));
    const missing = this.config.schemas.filter((s) => !have.has(s));
    if (missing.length) {
      throw new Error(
        `TOPICGATE_SCHEMAS: catalog ${this.config.catalog} has no schema ${missing.map((m) => JSON.stringify(m)).join(', ')}`,
      );
    }
  }

  async tables(): Promise<Map<string, TableInfo>> {
    const age = this.cache ? Date.now() - this.cache.at : Number.POSITIVE_INFINITY;
    if (age < this.ttlMs) return this.cache!.tables;
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    if (age >= this.ttlMs * STALE_FACTOR) return this.loading;
    // Answered from the last listing meanwhile; a failed load is tried again by the next request (and is the
    // error of a request that waits for it, once the listing is too old).
    this.loading.catch(() => {});
    return this.cache!.tables;
  }

  /** The table behind a topic id, or a 404 naming it. */
  async get(id: string): Promise<TableInfo> {
    const t = isPlausibleTopicId(id) ? (await this.tables()).get(id) : undefined;
    if (!t) throw topicNotFound(id);
    return t;
  }

  /** The model of the table behind a topic id (topicModel), the same object for as long as its listing lasts. */
  async model(id: string): Promise<TopicModel> {
    const t = await this.get(id);
    let m = this.models.get(t);
    if (!m) this.models.set(t, (m = topicModel(t, this.config)));
    return m;
  }

  private async load(): Promise<Map<string, TableInfo>> {
    const cat = quoteIdent(this.config.catalog);
    const { rows } = await this.trino.all(
      `SELECT table_schema, table_name, column_name, data_type FROM ${cat}.information_schema.columns ` +
        `WHERE table_schema IN (${this.config.schemas.map(stringLiteral).join(', ')}) ` +
        `ORDER BY table_schema, table_name, ordinal_position`,
      CATALOG_QUERY,
    );
    const single = this.config.schemas.length === 1;
    const tables = new Map<string, TableInfo>();
    for (const [schema, table, column, type] of rows as [string, string, string, string][]) {
      const id = single ? table : `${schema}:${table}`;
      let t = tables.get(id);
      if (!t) tables.set(id, (t = { id, schema, table, kind: 'table', columns: [] }));
      // Trino 476 lists each column twice when the filter names two schemas or more: a column is kept once.
      if (!t.columns.some((c) => c.name === column)) t.columns.push({ name: column, type });
    }
    for (const t of tables.values()) t.kind = isTopicLayout(t.columns) ? 'topic' : 'table';
    this.cache = { at: Date.now(), tables };
    return tables;
  }
}

/** A served table plus its configured expansions, as the planner sees it (table columns win over expanded fields). */
export function topicModel(t: TableInfo, config: Pick<Config, 'catalog' | 'topics'>): TopicModel {
  const settings = t.kind === 'topic' ? config.topics[t.id] : undefined;
  const tableColumns: ColumnNode[] = t.columns.map((c) => {
    // A key or value declared avro / json-sr: its bytes are Confluent frames (JSON paths must know it).
    const format = c.name === 'key' || c.name === 'value' ? settings?.[c.name]?.format : undefined;
    const framed = format === 'avro' || format === 'json-sr' ? format : undefined;
    return {
      kind: 'column',
      name: c.name,
      type: c.type,
      source: framed ? { kind: 'table', framed } : { kind: 'table' },
    };
  });
  const columns = new Map<string, ColumnNode>(tableColumns.map((c) => [c.name, c]));
  if (t.kind === 'topic') {
    // A table column wins over an expanded field of the same name.
    for (const c of expansionColumns(config.topics[t.id])) if (!columns.has(c.name)) columns.set(c.name, c);
  }
  const time = columns.get(TIME_COLUMN);
  return {
    id: t.id,
    source: {
      kind: 'source',
      catalog: config.catalog,
      schema: t.schema,
      table: t.table,
      topicKind: t.kind,
      columns: tableColumns,
    },
    columns,
    time: time && time.source.kind === 'table' && isTimestamp(time.type) ? time : null,
  };
}
