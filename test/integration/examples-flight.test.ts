/**
 * The Flight SQL examples and the README's Flight SQL section, run as a user runs them against a gateway serving
 * Flight over the demo topics, their figures checked against Trino directly: examples/flight_adbc.py (partitions
 * read at once), examples/flight_pyarrow.py (pyarrow.flight alone), the README's ADBC snippet and its JDBC URL
 * (through the JDBC test program). A statement whose Trino query fails mid-stream (the cut topic, test/cut-topic.ts)
 * makes each example fail.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUT_SCHEMA, CUT_SINCE, CUT_UNTIL, ensureCutTopic } from '../cut-topic.js';
import { flightGateway, type FlightGateway } from '../flight-gateway.js';
import { sql, trinoUrl } from '../helpers.js';
import { runJdbc } from '../jdbc/jdbc-program.js';

const run = promisify(execFile);
let demo: FlightGateway;
let cut: FlightGateway;

beforeAll(async () => {
  await ensureCutTopic(trinoUrl());
  demo = await flightGateway('demo|kafka_topics');
  cut = await flightGateway(CUT_SCHEMA);
}, 120_000);
afterAll(async () => {
  await demo?.close();
  await cut?.close();
});

/** Runs an example; resolves with its exit code and output (never rejects). */
async function example(args: string[]) {
  return run('python3', args, { encoding: 'utf8', maxBuffer: 16 << 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

async function perDay(): Promise<{ day: string; events: number }[]> {
  const rows = await sql(
    "SELECT format_datetime(date_trunc('day', timestamp_broker), 'yyyy-MM-dd'), count(*) FROM orders " +
      "WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00' GROUP BY 1 ORDER BY 1",
  );
  return rows.map(([day, events]) => ({ day: String(day), events: Number(events) }));
}

/** The README's Flight SQL section: its Python block and its JDBC URL, with the demo's URI as written there. */
function readmeFlight(): { python: string; jdbcUrl: string } {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(
    readme.indexOf('## Flight SQL'),
    readme.indexOf('\n## ', readme.indexOf('## Flight SQL') + 3),
  );
  const python = /```python\n([\s\S]*?)```/.exec(section)?.[1];
  const jdbcUrl = /`(jdbc:arrow-flight-sql:\/\/[^`]+)`/.exec(section)?.[1];
  if (!python || !jdbcUrl) throw new Error("README.md's Flight SQL section has no python block or no JDBC URL");
  return { python, jdbcUrl };
}

describe('the Flight SQL examples against the demo topics', () => {
  it('flight_adbc.py: four partitions read at once, joined and counted per day', async () => {
    const r = await example(['examples/flight_adbc.py', demo.flightUri, '', '4']);
    expect(r.code, r.stderr).toBe(0);
    const days = await perDay();
    expect(r.stdout).toMatch(new RegExp(`^rows: ${days.reduce((a, d) => a + d.events, 0)} in 4 partitions \\(`));
    expect(r.stdout).toContain('timestamp_broker: timestamp[ms, tz=UTC]');
    for (const d of days) expect(r.stdout).toContain(`day ${d.day}: ${d.events} events`);
    process.stderr.write(`[examples] flight_adbc.py:\n${r.stdout}`);
  }, 120_000);

  it('flight_pyarrow.py: pyarrow.flight alone, the command packed by hand', async () => {
    const r = await example(['examples/flight_pyarrow.py', demo.flightUri]);
    expect(r.code, r.stderr).toBe(0);
    const days = await perDay();
    expect(r.stdout).toContain(`rows: ${days.reduce((a, d) => a + d.events, 0)} in 1 endpoints`);
    for (const d of days) expect(r.stdout).toContain(`day ${d.day}: ${d.events} events`);
  }, 120_000);

  it("the README's ADBC snippet prints the events per day", async () => {
    const { python } = readmeFlight();
    expect(python).toContain('grpc://127.0.0.1:3001');
    const r = await example(['-c', python.replaceAll('grpc://127.0.0.1:3001', demo.flightUri)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/day: timestamp\[ms, tz=UTC\]/);
    for (const d of await perDay()) expect(r.stdout).toContain(String(d.events));
  }, 120_000);

  it("the README's JDBC URL connects the Flight SQL JDBC driver", async () => {
    const { jdbcUrl } = readmeFlight();
    const url = jdbcUrl.replace('127.0.0.1:3001', `127.0.0.1:${demo.flightPort}`);
    expect(url).not.toBe(jdbcUrl);
    const [tables] = await runJdbc(url, [['tables', '%']]);
    expect(tables?.rows?.map((r) => r.TABLE_NAME)).toContain('orders');
  }, 120_000);
});

describe('a statement cut mid-stream makes each Flight example fail', () => {
  const statement =
    `SELECT key, timestamp_broker FROM orders WHERE timestamp_broker >= TIMESTAMP '${CUT_SINCE.slice(0, 10)} 00:00:00' ` +
    `AND timestamp_broker < TIMESTAMP '${CUT_UNTIL.slice(0, 10)} 00:00:00'`;
  it.each([
    ['examples/flight_adbc.py', [statement, '2']],
    ['examples/flight_pyarrow.py', [statement]],
  ])(
    '%s',
    async (script, args) => {
      const r = await example([script, cut.flightUri, ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/DIVISION_BY_ZERO|Division by zero/i);
    },
    120_000,
  );
});
