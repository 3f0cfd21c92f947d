/**
 * How a state database spells what every store's schema uses: the column types and a table's name. Each feature's
 * store writes its own tables with it; the cursor stores add what only they need (instants, numbering, indexes).
 */
export interface StateDialect {
  text: string;
  int: string;
  /** A table name as written in statements (schema-qualified and quoted where the dialect needs it). */
  table(name: string): string;
}

/** SQLite: names are plain (every table is a fixed identifier of the gateway's own). */
export const SQLITE_DIALECT: StateDialect = { text: 'TEXT', int: 'INTEGER', table: (name) => name };
