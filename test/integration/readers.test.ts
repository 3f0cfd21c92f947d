/**
 * Formats that standard readers take as they are, read over real HTTP from a gateway on the real Trino:
 * pandas, polars, DuckDB (test/readers/read_with.py), Python's csv module and curl, in every format.
 * - Complete: each reader gets exactly the rows Trino holds for the window (a CSV body is plain RFC 4180: no
 *   phantom empty row in polars, no empty record in the csv module).
 * - Cut: a query that fails in Trino after the body has started (test/cut-topic.ts) ends as a broken HTTP transfer,
 *   so every reader fails by itself (Python's http.client raises IncompleteRead under each of them; curl exits 18),
 *   while what arrived still carries the in-body marker of its format.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUT_SCHEMA, CUT_SINCE, CUT_UNTIL, cutReadPath, ensureCutTopic, windowReadPath } from '../cut-topic.js';
import { sql, testGateway, trinoUrl } from '../helpers.js';

const run = promisify(execFile);
const FORMATS = ['json', 'ndjson', 'csv', 'arrow', 'parquet'] as const;
const ARROW_EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
const dir = mkdtempSync(join(tmpdir(), 'topicgate-readers-'));
const apps: FastifyInstance[] = [];
let complete = '';
let cut = '';
let expectedRows = 0;

async function gateway(schema: string): Promise<string> {
  const { app, url } = await testGateway(schema);
  apps.push(app);
  return url;
}

beforeAll(async () => {
  await ensureCutTopic(trinoUrl());
  complete = await gateway('demo|kafka_topics');
  cut = await gateway(CUT_SCHEMA);
  const [[n]] = (await sql(
    `SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '${CUT_SINCE.slice(0, 19).replace('T', ' ')}' ` +
      `AND timestamp_broker < TIMESTAMP '${CUT_UNTIL.slice(0, 19).replace('T', ' ')}'`,
  )) as [[number]];
  expectedRows = Number(n);
  expect(expectedRows).toBeGreaterThan(1000);
}, 120_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  rmSync(dir, { recursive: true, force: true });
});

type Outcome = { rows: number; columns: string[]; nulls: number } | { error: string };

/** One Python process per reader, reading every case in turn (asynchronously: the gateways share this loop). */
async function readWith(reader: string, cases: { format: string; url: string }[]): Promise<Outcome[]> {
  const file = join(dir, `${reader}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(cases));
  const { stdout } = await run('python3', ['test/readers/read_with.py', reader, file], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, RUST_BACKTRACE: '0' },
  });
  return JSON.parse(stdout) as Outcome[];
}

describe.each(['pandas', 'polars', 'duckdb'])('%s', (reader) => {
  it('reads every format of a complete response: exactly the rows of the window', async () => {
    const outcomes = await readWith(
      reader,
      FORMATS.map((format) => ({ format, url: complete + windowReadPath(format) })),
    );
    for (const [i, o] of outcomes.entries()) {
      expect(o, `${reader} ${FORMATS[i]}`).not.toHaveProperty('error');
      expect((o as { rows: number }).rows, `${reader} ${FORMATS[i]}`).toBe(expectedRows);
      expect((o as { columns: string[] }).columns, `${reader} ${FORMATS[i]}`).toContain('key');
    }
  }, 180_000);

  it('fails on every format of a cut response, by the broken transfer alone', async () => {
    const outcomes = await readWith(
      reader,
      FORMATS.map((format) => ({ format, url: cut + cutReadPath(format) })),
    );
    for (const [i, o] of outcomes.entries()) {
      expect(o, `${reader} ${FORMATS[i]} must fail`).toHaveProperty('error');
      expect((o as { error: string }).error, `${reader} ${FORMATS[i]}`).toContain('IncompleteRead');
    }
  }, 180_000);
});

describe("Python's csv module", () => {
  it('reads a complete CSV body as the header and one record per row (no empty record at the end)', async () => {
    const [o] = await readWith('csv', [{ format: 'csv', url: complete + windowReadPath('csv') }]);
    expect(o).toMatchObject({ rows: expectedRows, nulls: 0 }); // nulls: records whose length is not the header's
  }, 60_000);
  it('fails on a cut CSV body', async () => {
    const [o] = await readWith('csv', [{ format: 'csv', url: cut + cutReadPath('csv') }]);
    expect((o as { error: string }).error).toContain('IncompleteRead');
  }, 60_000);
});

/** curl as a loader runs it: exit status, and the bytes it saved. */
async function curl(url: string): Promise<{ code: number; body: Buffer; stderr: string }> {
  const out = join(dir, `curl-${Math.random().toString(36).slice(2)}`);
  const r = await run('curl', ['-sS', '--fail-with-body', '-o', out, url], { encoding: 'utf8' }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
  return { ...r, body: readFileSync(out) };
}

describe('curl', () => {
  it.each(FORMATS)('%s: a complete response exits 0; its body ends as the format says', async (format) => {
    const r = await curl(complete + windowReadPath(format));
    expect([r.code, r.stderr]).toEqual([0, '']);
    const text = r.body.toString('latin1');
    if (format === 'json') expect(JSON.parse(r.body.toString())).toMatchObject({ complete: true });
    if (format === 'ndjson') expect(text.endsWith('}\n\n')).toBe(true);
    if (format === 'csv') {
      expect(text.endsWith('\r\n')).toBe(true);
      expect(text.endsWith('\r\n\r\n')).toBe(false);
      expect(text.split('\r\n')).toHaveLength(expectedRows + 2); // header, rows, and '' after the last CRLF
    }
    if (format === 'arrow') expect(r.body.subarray(-8)).toEqual(ARROW_EOS);
    if (format === 'parquet') expect(text.slice(-4)).toBe('PAR1');
  });

  it.each(FORMATS)('%s: a cut response exits 18 and what arrived carries the in-body marker', async (format) => {
    const r = await curl(cut + cutReadPath(format));
    expect(r.code, r.stderr).toBe(18); // CURLE_PARTIAL_FILE: the chunked body was not terminated
    const text = r.body.toString('latin1');
    const last = text.trimEnd().split(/\r?\n/).pop() ?? '';
    if (format === 'json') {
      expect(JSON.parse(r.body.toString())).toMatchObject({ complete: false, error: { code: 'TG_BAD_VALUE' } });
    }
    if (format === 'ndjson') expect(JSON.parse(last)).toMatchObject({ error: { code: 'TG_BAD_VALUE' } });
    if (format === 'csv') {
      expect(last.startsWith('#error ')).toBe(true);
      expect(JSON.parse(last.slice('#error '.length))).toMatchObject({ code: 'TG_BAD_VALUE' });
    }
    if (format === 'arrow') {
      expect(r.body.length).toBeGreaterThan(1000);
      expect(r.body.subarray(-8)).not.toEqual(ARROW_EOS);
    }
    if (format === 'parquet') {
      expect(text.slice(0, 4)).toBe('PAR1');
      expect(text.slice(-4)).not.toBe('PAR1'); // no footer
    }
  });
});
