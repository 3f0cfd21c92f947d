/**
 * `npm run bench:encoders`: the encoders alone (no Trino, no HTTP), over rows generated in memory in the shape the
 * Trino protocol delivers the demo topics (scripts/demo-data.ts): `orders` (large JSON values with headers and the
 * hard cases: null and non-UTF-8 keys, non-JSON and non-UTF-8 values) and `clicks` (small JSON values, no headers).
 *
 *   npm run bench:encoders [-- --rows 200000] [--runs 5] [--batch 2000] [--topics orders,clicks] [--formats json,csv]
 *                          [--forms values,parsed,text]
 *
 * Each batch is given to the encoders in one of three forms (`--forms`, all by default): `values`, the rows as
 * JavaScript values made before the runs (the encoder's own work alone); `parsed`, the JSON text Trino sends
 * parsed in the run as the reader parses it for the value path (what a read whose rows are values costs); and
 * `text`, that JSON text as it is (core/text-rows.ts, what the transcoder encodes). The text is made once, before
 * the runs.
 * Each case drains one encoder over the same batches (bytes counted, then dropped). Runs go round-robin across the
 * cases after one warm-up each, so other load on the machine spreads evenly; the median run counts. The npm script
 * runs Node with --expose-gc so that each run starts after a full collection. CPU time (user + system of this
 * process) is printed beside wall time: on a shared machine it is the steadier of the two.
 */
import { Buffer } from 'node:buffer';
import { encoderRegistry, mediaTypeOfFormat, type FormatName } from '../src/encode/encoder-registry.js';
import type { ResultColumn } from '../src/core/result-stream.js';
import { TextRows, type RowBatch } from '../src/core/text-rows.js';

type Rows = unknown[][];
type Form = 'values' | 'parsed' | 'text';
const FORMS: Form[] = ['values', 'parsed', 'text'];
const TOPICS = ['orders', 'clicks'] as const;
type Topic = (typeof TOPICS)[number];
const ALL_FORMATS: FormatName[] = ['json', 'ndjson', 'csv', 'arrow', 'parquet'];

const COLUMNS: ResultColumn[] = [
  { name: 'key', type: 'varbinary' },
  { name: 'value', type: 'varbinary' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
  { name: 'timestamp_producer', type: 'timestamp(3)' },
  { name: 'headers', type: 'array(row(key varchar, value varbinary))' },
];

interface Options {
  rows: number;
  runs: number;
  batch: number;
  topics: Topic[];
  formats: FormatName[];
  forms: Form[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rows: 200_000, runs: 5, batch: 2000, topics: [...TOPICS], formats: ALL_FORMATS, forms: FORMS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--rows') o.rows = Number(v());
    else if (a === '--runs') o.runs = Number(v());
    else if (a === '--batch') o.batch = Number(v());
    else if (a === '--topics') o.topics = v().split(',') as Topic[];
    else if (a === '--formats') o.formats = v().split(',') as FormatName[];
    else if (a === '--forms') o.forms = v().split(',') as Form[];
    else throw new Error(`unknown argument ${a}`);
  }
  for (const t of o.topics) if (!TOPICS.includes(t)) throw new Error(`--topics: ${TOPICS.join(', ')}, not ${t}`);
  for (const f of o.formats) if (!ALL_FORMATS.includes(f)) throw new Error(`--formats: ${ALL_FORMATS}, not ${f}`);
  for (const f of o.forms) if (!FORMS.includes(f)) throw new Error(`--forms: ${FORMS}, not ${f}`);
  for (const n of [o.rows, o.runs, o.batch]) if (!(Number.isInteger(n) && n >= 1)) throw new Error('counts are >= 1');
  return o;
}

const b64 = (x: string | Buffer) => (typeof x === 'string' ? Buffer.from(x) : x).toString('base64');
const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** `2026-11-01 00:00:00.000` plus `ms`, as Trino sends a timestamp(3). */
function timestamp(ms: number): string {
  return new Date(Date.UTC(2026, 10, 1) + ms).toISOString().replace('T', ' ').slice(0, 23);
}

const NAMES = ['Zoë Müller', 'Łukasz Nowak', '李雷', 'José 🚀 Silva', 'مريم', 'Dr. \\"Q\\" O\'Brien', 'Ana', 'Ωmega'];
const CITIES = ['Berlin', 'Paris', 'New York', 'Tōkyō', 'São Paulo', 'Pune', 'Utrecht'];
const COUNTRIES = ['DE', 'FR', 'US', 'JP', 'BR', 'IN', 'NL'];
const STATUSES = ['paid', 'shipped', 'pending', 'cancelled', 'refunded'];

/** Event i of the demo `orders` topic, as the Trino protocol delivers its row (mirrors scripts/demo-data.ts). */
function orderRow(i: number): unknown[] {
  const id = 1000000 + Math.floor(i / 2);
  const broker = (i - (i % 100 < 10 ? i % 100 : 0)) * 20000;
  const key =
    i % 29 === 0
      ? null
      : i % 113 === 1
        ? b64(Buffer.concat([Buffer.of(0xff), Buffer.from(BigInt(i).toString(16).padStart(16, '0'), 'hex')]))
        : b64(`order-${id}`);
  const cents = ((i * 7919) % 50000) + 99;
  const amount = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  const address = `,"address":{"city":"${pick(CITIES, i)}","country":"${pick(COUNTRIES, i)}"}`;
  const customer = `{"id":"c${i % 1000}","name":"${pick(NAMES, i)}"${i % 53 === 11 ? '' : address}}`;
  const items =
    `[{"sku":"SKU-${i % 50}","qty":${(i % 3) + 1},"price":9.99}` +
    (i % 2 === 0 ? `,{"sku":"SKU-${i % 13}","qty":1,"price":19.50}` : '') +
    ']';
  const created = new Date(Date.UTC(2026, 10, 1) + broker - (i % 5) * 1000).toISOString().slice(0, 19) + 'Z';
  const status = pick(STATUSES, i);
  const value =
    i % 97 === 3
      ? b64(`not json: order ${i}`)
      : i % 211 === 5
        ? b64(Buffer.concat([Buffer.of(0xc3, 0x28), Buffer.from(`{"broken":${i}`)]))
        : i % 53 === 11
          ? b64(`{"order_id":${id},"status":"${status}","customer":${customer},"created_at":"${created}"}`)
          : i % 61 === 13
            ? b64(
                `{"order_id":"A-${i}","status":"${status}","amount":"twelve","customer":${customer},"created_at":"${created}"}`,
              )
            : b64(
                `{"order_id":${id},"status":"${status}","amount":${amount},"currency":"EUR","customer":${customer},` +
                  `"items":${items},"created_at":"${created}","trace_id":${9007199254740993n + BigInt(i)}}`,
              );
  const producer = i % 41 === 0 ? broker + 29000 : broker - ((i % 250) + 1);
  const trace = i % 9 === 0 ? b64(Buffer.of(0xff, 0x00, 0xfe)) : b64(BigInt(i).toString(16).padStart(16, '0'));
  const headers =
    i % 7 === 0
      ? []
      : [
          ['source', b64('web')],
          ['trace', trace],
        ];
  return [key, value, timestamp(broker), timestamp(producer), headers];
}

/** Event i of the demo `clicks` topic. */
function clickRow(i: number): unknown[] {
  const broker = Math.floor(i / 3) * 200;
  const value = `{"user":"u${i % 5000}","page":"/p/${i % 200}","ms":${i % 3000},"ref":${i % 4 === 0 ? 'null' : '"search"'}}`;
  return [b64(`u${i % 5000}`), b64(value), timestamp(broker), timestamp(broker - 5), []];
}

function batchesOf(topic: Topic, rows: number, batch: number): Rows[] {
  const row = topic === 'orders' ? orderRow : clickRow;
  const out: Rows[] = [];
  for (let at = 0; at < rows; at += batch) {
    const n = Math.min(batch, rows - at);
    out.push(Array.from({ length: n }, (_, k) => row(at + k)));
  }
  return out;
}

interface Run {
  /** Wall-clock seconds. */
  seconds: number;
  /** CPU seconds this process used (user + system): steadier than wall time when other work shares the cores. */
  cpu: number;
  bytes: number;
}

/** Collects the garbage of the previous run first (with --expose-gc), so that no run pays for another's. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** The batches as the JSON text Trino sends (no BIGINT column: JSON.parse is the reader's parse). */
function asText(batches: Rows[]): TextRows[] {
  const bad = () => new Error('not rows');
  return batches.map(
    (rows) => new TextRows(Buffer.from(JSON.stringify(rows).slice(1, -1)), rows.length, JSON.parse, bad),
  );
}

async function* each(batches: readonly RowBatch[], parse: boolean): AsyncGenerator<RowBatch> {
  for (const b of batches) yield parse && b instanceof TextRows ? b.values() : b;
}

/** Drains one encoder over the batches. */
async function runOnce(format: FormatName, batches: readonly RowBatch[], parse: boolean): Promise<Run> {
  const { encode } = encoderRegistry[mediaTypeOfFormat[format]];
  collect();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let bytes = 0;
  for await (const chunk of encode(
    { queryId: 'bench', columns: COLUMNS, batches: each(batches, parse) },
    { next: null },
  )) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
  }
  const c = process.cpuUsage(c0);
  return { seconds: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const data = new Map(
    o.topics.flatMap((t) => {
      const values = batchesOf(t, o.rows, o.batch);
      return o.forms.map((form): [string, readonly RowBatch[]] => [
        `${t}/${form}`,
        form === 'values' ? values : asText(values),
      ]);
    }),
  );
  const cases = o.topics.flatMap((topic) =>
    o.formats.flatMap((format) => o.forms.map((form) => ({ topic, format, form, data: `${topic}/${form}` }))),
  );
  const runs = new Map(cases.map((c) => [c, [] as Run[]]));
  const sizes = new Map<(typeof cases)[number], number>();
  for (const c of cases) sizes.set(c, (await runOnce(c.format, data.get(c.data)!, c.form === 'parsed')).bytes); // warm-up
  for (let r = 0; r < o.runs; r++) {
    for (const c of cases) runs.get(c)!.push(await runOnce(c.format, data.get(c.data)!, c.form === 'parsed'));
  }
  console.log(`rows ${o.rows}, batch ${o.batch}, median of ${o.runs} runs, Node ${process.version}`);
  console.log('| topic  | format | rows as |  rows/s | median ms | min ms | max ms | CPU ms | rows/CPU s | body MB |');
  console.log('| ------ | ------ | ------- | ------: | --------: | -----: | -----: | -----: | ---------: | ------: |');
  const ms = (s: number, w: number) => (s * 1000).toFixed(0).padStart(w);
  const rate = (s: number, w: number) =>
    Math.round(o.rows / s)
      .toLocaleString('en-US')
      .padStart(w);
  for (const c of cases) {
    const wall = runs.get(c)!.map((r) => r.seconds);
    const cpu = median(runs.get(c)!.map((r) => r.cpu));
    const m = median(wall);
    console.log(
      `| ${c.topic.padEnd(6)} | ${c.format.padEnd(6)} | ${c.form.padEnd(7)} | ${rate(m, 7)} | ${ms(m, 9)} | ${ms(Math.min(...wall), 6)} ` +
        `| ${ms(Math.max(...wall), 6)} | ${ms(cpu, 6)} | ${rate(cpu, 10)} | ${(sizes.get(c)! / 1e6).toFixed(1).padStart(7)} |`,
    );
  }
}

await main();
