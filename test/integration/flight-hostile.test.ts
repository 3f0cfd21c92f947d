/**
 * The hostile corpus over Flight SQL (API.md "Flight SQL": injection-shaped and deep SQL gets INVALID_ARGUMENT, never
 * INTERNAL, and the server keeps serving): pyarrow.flight sends each statement as CommandStatementQuery to the real
 * gateway on the real Trino, one after another on one connection. A statement the SQL subset refuses is
 * INVALID_ARGUMENT carrying TG_BAD_SQL and the parser's own message; one it reads is rows or a client error (an
 * unknown column or topic), never INTERNAL or UNKNOWN; bytes that are not UTF-8 are read as U+FFFD (never as bytes)
 * and a 200 KB statement nested deep is refused. Afterwards the same gateway reads rows, answers /readyz, and Trino has run no query holding the
 * text of a refused statement.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { ApiError } from '../../src/core/errors.js';
import { parseStatement } from '../../src/query/statement/parse-statement.js';
import { HOSTILE } from '../cases/hostile-corpus.js';
import { flightGateway, type FlightGateway } from '../flight-gateway.js';
import { sql } from '../helpers.js';

const execFileAsync = promisify(execFile);
const run = randomBytes(4).toString('hex');
const KEY = `key-hostile-${run}-0000000000000`;
const MARKER = `tg_marker_${run}`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-flight-hostile-'));
let gw: FlightGateway;

/** One minute of the demo orders: statements that are read scan little. */
const W = "timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 00:01:00'";
const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const sqlIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** What a client saw for one statement: rows read, or the gRPC status and message. */
type Result = { ok: number } | { error: { status: string; message: string } };

/** Sends the statements (text, or raw bytes) through pyarrow.flight, in order, on one connection. */
async function send(statements: (string | Buffer)[]): Promise<Result[]> {
  const file = join(dir, `${randomBytes(6).toString('hex')}.json`);
  const hex = statements.map((s) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s).toString('hex'));
  writeFileSync(file, JSON.stringify({ uri: gw.flightUri, token: KEY, statements: hex }));
  // Asynchronously: the gateway under test shares this process's event loop.
  const { stdout } = await execFileAsync('python3', ['test/flight/flight_hostile.py', file], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { results: Result[] }).results;
}

/** The parser's refusal of a statement, or null when it reads it. */
function refusalOf(statement: string): string | null {
  try {
    parseStatement(statement);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
}

/** The statuses a client error may have: never INTERNAL or UNKNOWN. */
const CLIENT_ERRORS = ['INVALID_ARGUMENT', 'NOT_FOUND', 'RESOURCE_EXHAUSTED'];

function expectAnswer(statement: string, r: Result): void {
  // What the server reads: the statement's UTF-8, where a lone surrogate was written as U+FFFD.
  const refused = refusalOf(Buffer.from(statement, 'utf8').toString('utf8'));
  if (refused !== null) {
    expect(r, statement).toHaveProperty('error');
    const { status, message } = (r as { error: { status: string; message: string } }).error;
    expect([status, message.includes(`TG_BAD_SQL`), message.includes(refused)], statement).toEqual([
      'INVALID_ARGUMENT',
      true,
      true,
    ]);
  } else if ('error' in r) {
    expect(CLIENT_ERRORS, `${statement}: ${r.error.message}`).toContain(r.error.status);
    expect(r.error.message, statement).toMatch(/TG_[A-Z_]+/);
  } else expect(r.ok, statement).toBeGreaterThanOrEqual(0);
}

beforeAll(async () => {
  const file = join(dir, 'hostile.yaml');
  writeFileSync(
    file,
    stringify({
      auth: { apiKeys: [{ principal: `hostile-${run}`, sha256: apiKeyHash(KEY), roles: ['r'] }] },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
    }),
  );
  gw = await flightGateway('demo|kafka_topics', {
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: `hostile-secret-${run}-0123456789abcdef`,
  });
}, 300_000);
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

const PLACES: [string, (h: string) => string][] = [
  ['the whole statement', (h) => h],
  ['a select item', (h) => `SELECT ${h} FROM orders WHERE ${W}`],
  ['the topic', (h) => `SELECT * FROM ${h} WHERE ${W}`],
  ['a value written raw', (h) => `SELECT * FROM orders WHERE ${W} AND key = ${h}`],
  ['a string written raw', (h) => `SELECT * FROM orders WHERE ${W} AND key = '${h}'`],
  ['an identifier written raw', (h) => `SELECT * FROM orders WHERE ${W} AND "${h}" = 1`],
  ['after LIMIT', (h) => `SELECT * FROM orders WHERE ${W} LIMIT ${h}`],
  ['after a whole statement', (h) => `SELECT key FROM orders WHERE ${W} ${h}`],
  ['a quoted string', (h) => `SELECT key FROM orders WHERE ${W} AND key = ${sqlString(h)}`],
  ['a quoted column', (h) => `SELECT ${sqlIdent(h)} FROM orders WHERE ${W}`],
  ['a quoted topic', (h) => `SELECT * FROM ${sqlIdent(h)} WHERE ${W}`],
];

/** Statements shaped as injections or built to exhaust the parser; the marker must never reach Trino. */
const ATTACKS = [
  `SELECT * FROM orders; DROP TABLE ${MARKER}`,
  `SELECT * FROM orders WHERE ${W}; DELETE FROM ${MARKER}`,
  `SELECT key FROM orders WHERE ${W} UNION SELECT query FROM system.runtime.queries WHERE query = '${MARKER}'`,
  `SELECT * FROM system.runtime.queries WHERE query = '${MARKER}'`,
  `SELECT * FROM orders WHERE key IN (SELECT '${MARKER}')`,
  `WITH ${MARKER} AS (SELECT 1) SELECT * FROM ${MARKER}`,
  `SELECT * FROM orders JOIN ${MARKER} ON 1 = 1`,
  `INSERT INTO orders SELECT * FROM ${MARKER}`,
  `CREATE TABLE ${MARKER} AS SELECT * FROM orders`,
  `SELECT * FROM orders WHERE key = '${MARKER}' OR key = cast('x' AS varbinary)`,
  `SELECT * FROM orders /* ${MARKER} */ WHERE key = ?`,
  `SELECT * FROM orders WHERE ${'('.repeat(30_000)}key = '${MARKER}'${')'.repeat(30_000)}`,
  `SELECT * FROM orders WHERE ${'NOT '.repeat(15_000)}key = '${MARKER}'`,
  `SELECT ${'count('.repeat(8_000)}key${')'.repeat(8_000)} FROM orders WHERE key = '${MARKER}'`,
];

/**
 * Every place's statements, place after place on one connection of one client process (each start of Python with
 * pyarrow costs about a quarter of a CPU-second): sent by the first place's test, each place's answers checked by
 * its own.
 */
let everyPlace: Promise<Result[]> | undefined;
async function answersIn(placeIndex: number): Promise<Result[]> {
  everyPlace ??= send(PLACES.flatMap(([, place]) => HOSTILE.map(place)));
  const results = await everyPlace;
  expect(results).toHaveLength(PLACES.length * HOSTILE.length);
  return results.slice(placeIndex * HOSTILE.length, (placeIndex + 1) * HOSTILE.length);
}

describe('Flight SQL statements from the hostile corpus', () => {
  it.each(PLACES.map(([name], i) => [name, i] as const))(
    'in %s: INVALID_ARGUMENT with the parser message when refused, else rows or a client error',
    async (_, placeIndex) => {
      const statements = HOSTILE.map(PLACES[placeIndex]![1]);
      const results = await answersIn(placeIndex);
      expect(results).toHaveLength(statements.length);
      for (const [i, s] of statements.entries()) expectAnswer(s, results[i]!);
    },
    300_000,
  );

  it('injection-shaped and deep statements are INVALID_ARGUMENT naming the construct', async () => {
    const results = await send(ATTACKS);
    for (const [i, s] of ATTACKS.entries()) expectAnswer(s, results[i]!);
    expect(results.every((r) => 'error' in r && r.error.status === 'INVALID_ARGUMENT')).toBe(true);
  }, 120_000);

  it('bytes that are not UTF-8 are read as U+FFFD; a 200 KB statement nested 100,000 deep is refused: never INTERNAL', async () => {
    const prefix = Buffer.from(`SELECT key FROM orders WHERE ${W} AND key = '`);
    const results = await send([
      Buffer.concat([prefix, Buffer.from([0xff, 0xfe]), Buffer.from("'")]),
      Buffer.concat([prefix, Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("'")]),
      Buffer.from([0xc0, 0xaf]),
      `SELECT * FROM orders WHERE ${'('.repeat(100_000)}key = 'x'${')'.repeat(100_000)}`,
    ]);
    expect(results.slice(0, 2)).toEqual([{ ok: 0 }, { ok: 0 }]);
    for (const r of results.slice(2)) {
      expect(r).toHaveProperty('error');
      expect(CLIENT_ERRORS).toContain((r as { error: { status: string } }).error.status);
    }
  }, 120_000);

  it('afterwards the gateway still reads rows and is ready, and Trino ran nothing of a refused statement', async () => {
    const [rows] = await send([`SELECT key FROM orders WHERE ${W} LIMIT 3`]);
    expect(rows).toEqual({ ok: 3 });
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
    // The marker spelled in two halves, so this query does not find itself.
    const seen = await sql(
      `SELECT count(*) FROM system.runtime.queries WHERE strpos(query, 'tg_marker_' || '${run}') > 0`,
    );
    expect(seen).toEqual([[0]]);
  }, 120_000);
});
