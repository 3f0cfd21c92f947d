/**
 * The result schemas of statements lately probed, per caller: a client that prepares a statement and then asks for
 * its FlightInfo (ADBC's execute does both) runs the probe query once, not twice. Keyed by the principal and the
 * SQL text, kept briefly (a topic's columns or reader schemas may change), and only ever a schema: every call still
 * plans the statement for its caller, with the grants and row policies in force, before its schema is looked up.
 */

/** How long a probed schema is reused. */
const TTL_MS = 30_000;
/** Schemas kept at most (the oldest go first). */
const MAX_ENTRIES = 1_000;

export class SchemaCache {
  private readonly entries = new Map<string, { at: number; schema: Buffer }>();

  /** The schema of `sql` for `principal`, probed by `probe` unless it was lately. */
  async get(principal: string, sql: string, probe: () => Promise<Buffer>, now = Date.now()): Promise<Buffer> {
    const key = `${principal}\0${sql}`;
    const hit = this.entries.get(key);
    if (hit && now - hit.at < TTL_MS) return hit.schema;
    const schema = await probe();
    this.entries.delete(key);
    this.entries.set(key, { at: now, schema });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return schema;
  }
}
