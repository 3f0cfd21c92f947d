/**
 * `npm run bench:avro`: what decoding Avro costs. The same payment events twice in the bench schema:
 * `payments_avro` (Confluent-framed Avro, decoded through the local Schema Registry into typed records) and
 * `payments_json` (the same events as JSON text, passed through). Each is read whole (`limit=all`) by a gateway
 * process in NDJSON and Arrow; rows/s is the median of the repetitions.
 *
 *   npm run bench:avro [-- --events 30000] [--reps 3]
 *
 * Needs the local Trino (started and stopped here when not running) and the local registry (likewise).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { down, up } from '../scripts/local-trino.js';
import { registryDown, registryUp } from '../scripts/local-registry.js';
import { AVRO_JSON_TOPIC, AVRO_TOPIC, demoAvroStatements, registerDemoSchemas } from '../scripts/demo-avro.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { readGateway, startGateway, type Format } from './gateway.js';
import { demoAvroEvent } from '../scripts/demo-avro.js';
import { preparePayloads } from '../src/blob/avro/payload-decoder.js';
import { SchemaRegistry } from '../src/blob/avro/schema-registry.js';
import { batchLength } from '../src/core/text-rows.js';

/** Decoding alone, in this process: the framed values of `events` events through the decoder, rows/s. */
async function decodeOnly(registryUrl: string, events: number): Promise<number> {
  const registry = new SchemaRegistry({
    url: registryUrl,
    username: undefined,
    passwordFile: undefined,
    maxConcurrent: 4,
    timeoutMs: 10_000,
    maxCachedSchemas: 1000,
    unknownIdTtlMs: 60_000,
  });
  const ids = await registerDemoSchemas(registryUrl);
  const values = Array.from({ length: events }, (_, i) => [demoAvroEvent(i, events, ids).value.toString('base64')]);
  const decoding = await preparePayloads(AVRO_TOPIC, { value: { format: 'avro' } }, registry);
  const t0 = performance.now();
  const result = decoding!.wrap({
    queryId: 'bench',
    columns: [{ name: 'value', type: 'varbinary' }],
    batches: (async function* () {
      for (let i = 0; i < values.length; i += 1000) yield values.slice(i, i + 1000);
    })(),
  });
  let n = 0;
  for await (const batch of result.batches) n += batchLength(batch);
  return n / ((performance.now() - t0) / 1000);
}

const SCHEMA = 'bench|kafka_topics';
const log = (msg: string) => process.stderr.write(`[bench:avro] ${msg}\n`);

function args(argv: string[]): { events: number; reps: number } {
  const o = { events: 30_000, reps: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const v = Number(argv[i + 1]);
    if (argv[i] === '--events' && Number.isInteger(v) && v > 0 && v <= 80_000) o.events = v;
    else if (argv[i] === '--reps' && Number.isInteger(v) && v > 0) o.reps = v;
    else throw new Error('usage: bench/avro.ts [--events 1..80000] [--reps n]');
  }
  return o;
}

async function load(trinoUrl: string, registryUrl: string, events: number): Promise<void> {
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  const t = (name: string) => `${quoteIdent('vast')}.${quoteIdent(SCHEMA)}.${quoteIdent(name)}`;
  const loaded = await c.all(`SELECT count(*) FROM ${t(AVRO_JSON_TOPIC)}`).then(
    (r) => Number(r.rows[0]?.[0]),
    () => -1,
  );
  if (loaded === events) {
    log(`${events} events already loaded`);
    return;
  }
  const ids = await registerDemoSchemas(registryUrl);
  const t0 = performance.now();
  await c.all(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent('vast')}.${quoteIdent(SCHEMA)}`);
  for (const sql of demoAvroStatements(events, ids, { withJson: true, batch: 900, schema: SCHEMA })) {
    await c.all(sql, { timeoutMs: 600_000 });
  }
  log(`loaded ${events} events in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const o = args(process.argv.slice(2));
  const [trino, registry] = [await up(), await registryUp()];
  const dir = mkdtempSync(join(tmpdir(), 'topicgate-bench-avro-'));
  try {
    await load(trino.url, registry.url, o.events);
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      `schemaRegistry: { url: '${registry.url}' }\ntopics:\n  ${AVRO_TOPIC}:\n    key: { format: avro }\n    value: { format: avro }\n`,
    );
    const decodeRates = [];
    for (let r = 0; r < o.reps; r++) decodeRates.push(await decodeOnly(registry.url, o.events));
    log(`decoding alone: ${decodeRates.map((x) => Math.round(x)).join(', ')} rows/s`);
    const gw = await startGateway({
      TOPICGATE_TRINO_URL: trino.url,
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_CONFIG: config,
      TOPICGATE_PORT: '18850',
      TOPICGATE_STATE_URL: 'sqlite::memory:',
    });
    const until = new Date(Date.UTC(2026, 10, 1) + o.events * 30_000).toISOString();
    const rows: string[] = [];
    try {
      for (const format of ['ndjson', 'arrow'] as Format[]) {
        const rate: Record<string, number> = {};
        for (const topic of [AVRO_JSON_TOPIC, AVRO_TOPIC]) {
          const url = `${gw.url}/v1/topics/${topic}/events?since=2026-11-01T00:00:00Z&until=${until}&limit=all&format=${format}`;
          const runs: number[] = [];
          for (let r = 0; r < o.reps; r++) {
            const res = await readGateway(url, format, o.events);
            runs.push(res.rows / res.seconds);
          }
          rate[topic] = median(runs);
          log(`${topic} ${format}: ${runs.map((x) => Math.round(x)).join(', ')} rows/s`);
        }
        const json = rate[AVRO_JSON_TOPIC] ?? 0;
        const avro = rate[AVRO_TOPIC] ?? 0;
        rows.push(`| ${format} | ${Math.round(json)} | ${Math.round(avro)} | ${(avro / json).toFixed(2)}x |`);
      }
    } finally {
      await gw.stop();
    }
    process.stdout.write(
      [
        `${o.events} payment events, limit=all, median of ${o.reps}; rows/s`,
        '| format | payments_json (JSON text, passed through) | payments_avro (decoded) | avro / json |',
        '| --- | ---: | ---: | ---: |',
        ...rows,
        '',
        `decoding alone (framed value -> typed record, in one process): ${Math.round(median(decodeRates))} rows/s`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (registry.started) await registryDown();
    if (trino.started) await down();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:avro] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
