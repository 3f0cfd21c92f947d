/**
 * Loads the demo topics into the local Trino (or the Trino at TOPICGATE_TRINO_URL).
 *   tsx scripts/load-demo.ts [--events N] [--pg]     (default 10000 events per topic)
 * `--pg` also copies them into the `vastpg` catalog (PostgreSQL: needs scripts/local-postgres.ts up).
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { HttpTrino } from '../src/trino/http-trino.js';
import type { TrinoPort } from '../src/trino/trino-port.js';
import { DEFAULT_TRINO_URL } from '../src/config/trino-settings.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { DEMO_CATALOG, DEMO_SCHEMA, demoSizes, demoStatements, type DemoSizes } from './demo-data.js';

export const DEFAULT_DEMO_EVENTS = 10_000;

/** The copy of the demo topics on PostgreSQL, where Trino really pushes predicates into the scan. */
export const PG_CATALOG = 'vastpg';
export const PG_SCHEMA = 'demo_topics';
/** The topic tables copied; the PG connector cannot store `headers` (array(row)), so the copy omits it. */
const PG_TOPICS = ['orders', 'clicks', 's3_events'] as const;
const PG_TOPIC_COLUMNS = 'key, value, timestamp_broker, timestamp_producer';

export interface LoadDemoOptions {
  /** Also copy the loaded topics into vastpg.demo_topics (the PostgreSQL server must be up). */
  pgCopy?: boolean;
  /** Keep the tables when the same demo (same statements) is already loaded (test runs sharing one Trino). */
  reuse?: boolean;
}

/** Records which demo is loaded, so a run can reuse it instead of dropping tables under another run. */
const MARKER = `${quoteIdent(DEMO_CATALOG)}.${quoteIdent('topicgate_meta')}.${quoteIdent('demo_load')}`;

async function loadedFingerprint(client: TrinoPort): Promise<string | null> {
  try {
    const { rows } = await client.all(`SELECT fingerprint FROM ${MARKER}`);
    return (rows[0]?.[0] as string | undefined) ?? null;
  } catch {
    return null;
  }
}

/** The statements that (re)create the PostgreSQL copy from the memory catalog's demo topics, per table. */
export function pgCopyStatements(): string[][] {
  const src = (name: string) => `${quoteIdent(DEMO_CATALOG)}.${quoteIdent(DEMO_SCHEMA)}.${quoteIdent(name)}`;
  const dst = (name: string) => `${quoteIdent(PG_CATALOG)}.${quoteIdent(PG_SCHEMA)}.${quoteIdent(name)}`;
  const copy = (name: string, columns: string) => [
    `DROP TABLE IF EXISTS ${dst(name)}`,
    `CREATE TABLE ${dst(name)} AS SELECT ${columns} FROM ${src(name)}`,
  ];
  return [...PG_TOPICS.map((t) => copy(t, PG_TOPIC_COLUMNS)), copy('orders_expanded', '*')];
}

/**
 * Copies the demo topics of the memory catalog into vastpg.demo_topics: one CTAS per table, the tables in
 * parallel. Returns the seconds it took.
 */
export async function loadPgCopy(trinoUrl: string): Promise<number> {
  const client = new HttpTrino({ server: trinoUrl, user: 'topicgate-loader' });
  const t0 = performance.now();
  const run = (sql: string) => client.all(sql, { timeoutMs: 1_800_000 });
  await run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(PG_CATALOG)}.${quoteIdent(PG_SCHEMA)}`);
  await Promise.all(
    pgCopyStatements().map(async (statements) => {
      for (const sql of statements) await run(sql);
    }),
  );
  return (performance.now() - t0) / 1000;
}

/**
 * Creates and fills the demo topics (and, with `pgCopy`, their PostgreSQL copy); returns the sizes loaded and
 * the seconds it took in all.
 */
export async function loadDemo(
  trinoUrl: string,
  events = DEFAULT_DEMO_EVENTS,
  options: LoadDemoOptions = {},
): Promise<{ sizes: DemoSizes; seconds: number; reused: boolean; pgSeconds?: number }> {
  const client = new HttpTrino({ server: trinoUrl, user: 'topicgate-loader' });
  const sizes = demoSizes(events);
  const statements = demoStatements(sizes);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([statements, options.pgCopy ? pgCopyStatements() : []]))
    .digest('hex');
  const t0 = performance.now();
  if (options.reuse && (await loadedFingerprint(client)) === fingerprint) {
    // The PostgreSQL copy lives outside Trino: make sure it is still there.
    const pgThere =
      !options.pgCopy ||
      (await client.all(`SELECT count(*) FROM ${quoteIdent(PG_CATALOG)}.${quoteIdent(PG_SCHEMA)}.orders`).then(
        () => true,
        () => false,
      ));
    if (pgThere) return { sizes, seconds: 0, reused: true };
  }
  const run = (sql: string) => client.all(sql, { timeoutMs: 1_800_000 });
  await run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(DEMO_CATALOG)}.${quoteIdent('topicgate_meta')}`);
  await run(`DROP TABLE IF EXISTS ${MARKER}`);
  for (const sql of statements) await run(sql);
  const pgSeconds = options.pgCopy ? await loadPgCopy(trinoUrl) : undefined;
  await run(`CREATE TABLE ${MARKER} AS SELECT '${fingerprint}' AS fingerprint, current_timestamp AS loaded_at`);
  return {
    sizes,
    seconds: (performance.now() - t0) / 1000,
    reused: false,
    ...(pgSeconds !== undefined ? { pgSeconds } : {}),
  };
}

export function parseEventsArg(argv: string[]): number {
  const i = argv.indexOf('--events');
  if (i < 0) return DEFAULT_DEMO_EVENTS;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 50_000_000) throw new Error('--events takes an integer from 1 to 50000000');
  return n;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.env.TOPICGATE_TRINO_URL ?? DEFAULT_TRINO_URL;
  const argv = process.argv.slice(2);
  loadDemo(url, parseEventsArg(argv), { pgCopy: argv.includes('--pg') })
    .then(({ sizes, seconds, pgSeconds }) => {
      const pg = pgSeconds !== undefined ? ` (PostgreSQL copy ${pgSeconds.toFixed(1)}s)` : '';
      process.stderr.write(`[demo] loaded ${JSON.stringify(sizes)} in ${seconds.toFixed(1)}s${pg}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`[demo] error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
