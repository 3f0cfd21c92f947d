/**
 * The Flight SQL entrance (API.md "Flight SQL") with the real clients against the real Trino and Schema Registry:
 * ADBC's Flight SQL driver (a bearer key, and a username/password handshake) and pyarrow.flight (a basic-token
 * handshake, GetFlightInfo and DoGet), run by test/flight/flight_sql.py. A statement's rows equal the REST Arrow
 * output of the same /query body, value for value (bigints beyond 2^53, decimals, binary keys, UTC timestamps, the
 * decoded Avro records); and access holds as over REST: an ungranted topic is absent from GetTables and NOT_FOUND as
 * a statement, a row policy gives its principal only its rows, a ticket serves only the principal it was made for,
 * no credentials is UNAUTHENTICATED, and SQL outside the subset is INVALID_ARGUMENT while the server keeps serving.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { SignJWT } from 'jose';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { parseStatement } from '../../src/query/statement/parse-statement.js';
import { packCommand } from '../../src/flight/flight-sql-messages.js';
import { trinoUrl } from '../helpers.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'topicgate-flight-sql-'));
const registryUrl = inject('registryUrl');
const JWT_SECRET = 'flight-jwt-secret-of-at-least-32-bytes-long';
const jwt = (claims: Record<string, unknown>, expires: string | number) =>
  new SignJWT({ iss: 'https://idp.test/', aud: 'topicgate', ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(expires)
    .sign(new TextEncoder().encode(JWT_SECRET));
const KEY = { all: 'flight-key-all-00000000000000000000', eu: 'flight-key-eu-000000000000000000000' };
const WINDOW =
  "timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00 UTC' AND timestamp_broker < TIMESTAMP '2026-11-02 00:00:00 UTC'";

type Plain = { schema: { name: string; type: string }[]; rows: Record<string, unknown>[] };
type Step = { ok?: unknown; error?: { grpc: string; message: string } };

let gateway: Awaited<ReturnType<typeof startServer>>;
let uri: string;

beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  writeFileSync(join(dir, 'jwt-secret'), JWT_SECRET);
  const file = join(dir, 'flight.yaml');
  writeFileSync(
    file,
    stringify({
      schemaRegistry: { url: registryUrl },
      topics: { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } },
      auth: {
        apiKeys: [
          { principal: 'all-1', sha256: apiKeyHash(KEY.all), roles: ['all'] },
          { principal: 'eu-1', sha256: apiKeyHash(KEY.eu), roles: ['eu'] },
        ],
        jwt: { secretFile: join(dir, 'jwt-secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
        public: ['health'],
      },
      access: [
        { roles: ['all'], topics: ['*'], actions: ['read', 'explain'] },
        { roles: ['eu'], topics: ['payments_avro', 'orders'], actions: ['read'] },
      ],
      rowPolicies: {
        default: 'allow',
        payments_avro: [{ roles: ['eu'], filter: 'value.customer.country=eq.DE' }],
      },
    }),
  );
  gateway = await startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_CONFIG: file,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_FLIGHT_PORT: '0',
      TOPICGATE_CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-bytes-for-flight',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
  );
  uri = gateway.flight!.uri;
}, 120_000);
afterAll(async () => {
  await gateway?.app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs steps with the Python clients (asynchronously: the gateway shares this event loop). */
async function py(args: Record<string, unknown>): Promise<{ connect?: Step['error']; results: Step[] }> {
  const { stdout } = await run('python3', ['test/flight/flight_sql.py', JSON.stringify({ uri, ...args })], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(stdout) as { connect?: Step['error']; results: Step[] };
}

/** One step's answer, which must have succeeded. */
async function ok<T>(args: Record<string, unknown>, step: Record<string, unknown>): Promise<T> {
  const out = await py({ ...args, steps: [step] });
  expect(out.connect, JSON.stringify(out.connect)).toBeUndefined();
  const [r] = out.results;
  expect(r?.error, JSON.stringify(r?.error)).toBeUndefined();
  return r!.ok as T;
}

/** The REST Arrow output of the statement's /query body, read by pyarrow as the Flight rows are. */
async function restArrow(key: string, sql: string): Promise<Plain> {
  const { topic, body } = parseStatement(sql);
  const res = await fetch(`${gateway.url}/v1/topics/${topic.name}/query?format=arrow`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const file = join(dir, `${Math.random().toString(36).slice(2)}.arrow`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  const { stdout } = await run('python3', ['test/pyarrow/read_arrow.py', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return JSON.parse(stdout) as Plain;
}

/** Rows as a sorted list of their JSON texts: ties in the order may come back in any order, duplicates count. */
const bag = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r)).sort();

describe('metadata', () => {
  it('adbc_get_objects: catalog topicgate, the served schema, every table the caller may see with its columns', async () => {
    const objects = await ok<[string, string, string, string[]][]>({ token: KEY.all }, { do: 'objects' });
    const tables = objects.map(([, , t]) => t);
    expect(tables).toEqual(expect.arrayContaining(['clicks', 'orders', 'payments_avro']));
    expect(new Set(objects.map(([c, s]) => `${c}/${s}`))).toEqual(new Set(['topicgate/demo|kafka_topics']));
    const avro = objects.find(([, , t]) => t === 'payments_avro')!;
    // The decoded value and its companions, as GET /v1/topics/payments_avro gives them.
    expect(avro[3]).toEqual(expect.arrayContaining(['key', 'value', 'value_schema_id', 'value_raw', 'value_error']));
  });

  it('an ungranted topic is absent from GetTables', async () => {
    const tables = (await ok<[string, string, string][]>({ token: KEY.eu }, { do: 'objects' })).map(([, , t]) => t);
    expect(tables.sort()).toEqual(['orders', 'payments_avro']);
  });

  it('a filter pattern reaches no further than the grants: an ungranted topic matched by its name stays absent', async () => {
    const tables = async (pattern: string) => {
      const hex = packCommand('CommandGetTables', { tableNameFilterPattern: pattern }).toString('hex');
      const answer = await ok<Plain>({ token: KEY.eu }, { do: 'raw', call: 'meta', hex });
      return answer.rows.map((r) => r.table_name).sort();
    };
    expect(await tables('s3%')).toEqual([]);
    expect(await tables('s3\\_events')).toEqual([]);
    expect(await tables('%')).toEqual(['orders', 'payments_avro']);
    expect(await tables('%%_%')).toEqual(['orders', 'payments_avro']);
  });

  it('adbc_get_table_schema: the Arrow types of the REST Arrow output (decoded record as a struct)', async () => {
    const schema = await ok<{ name: string; type: string }[]>(
      { token: KEY.all },
      { do: 'table_schema', table: 'payments_avro' },
    );
    const sql = `SELECT * FROM payments_avro WHERE ${WINDOW} LIMIT 5`;
    const rest = await restArrow(KEY.all, sql);
    expect(schema).toEqual(rest.schema);
    expect(schema.find((f) => f.name === 'value')!.type).toMatch(/^struct</);
  });

  it('the metadata commands answer the schemas the specification defines', async () => {
    const meta = async (cmd: Buffer) =>
      ok<Plain & { infoSchema: (Plain['schema'][number] & { nullable: boolean })[] }>(
        { token: KEY.all },
        { do: 'raw', call: 'meta', hex: cmd.toString('hex') },
      );
    const schemas = await meta(packCommand('CommandGetDbSchemas', { dbSchemaFilterPattern: 'demo%' }));
    expect(schemas.rows).toEqual([{ catalog_name: 'topicgate', db_schema_name: 'demo|kafka_topics' }]);
    expect(schemas.infoSchema.map((f) => [f.name, f.type, f.nullable])).toEqual([
      ['catalog_name', 'string', true],
      ['db_schema_name', 'string', false],
    ]);
    const tables = await meta(
      packCommand('CommandGetTables', { tableNameFilterPattern: 'ord%', tableTypes: ['TOPIC'] }),
    );
    expect(tables.rows).toEqual([
      { catalog_name: 'topicgate', db_schema_name: 'demo|kafka_topics', table_name: 'orders', table_type: 'TOPIC' },
    ]);
    const info = await meta(packCommand('CommandGetSqlInfo', { info: [0, 3, 504] }));
    expect(info.infoSchema[1]!.type).toMatch(
      /^dense_union<string_value: string=0, bool_value: bool=1, bigint_value: int64=2, int32_bitmask: int32=3, string_list: list/,
    );
    expect(info.rows).toEqual([
      { info_name: 0, value: 'topicgate' },
      { info_name: 3, value: true },
      { info_name: 504, value: '"' },
    ]);
    const subset = await meta(packCommand('CommandGetSqlInfo', { info: [508, 509, 557] }));
    expect(subset.rows[0]!.value).toEqual(expect.arrayContaining(['SELECT', 'WHERE', 'GROUP', 'LIMIT']));
    expect(subset.rows[1]!.value).toEqual(expect.arrayContaining(['count', 'approx_percentile']));
    expect(subset.rows[2]).toEqual({ info_name: 557, value: 262144 });
    const types = await meta(packCommand('CommandGetXdbcTypeInfo', {}));
    expect(types.rows.find((r) => r.type_name === 'bigint')).toMatchObject({
      data_type: -5,
      nullable: 1,
      searchable: 3,
    });
    expect(types.infoSchema).toHaveLength(19);
    const keys = await meta(packCommand('CommandGetPrimaryKeys', { table: 'orders' }));
    expect(keys.rows).toEqual([]);
    expect(keys.infoSchema.map((f) => f.name)).toEqual([
      'catalog_name',
      'db_schema_name',
      'table_name',
      'column_name',
      'key_name',
      'key_sequence',
    ]);
  });

  it('table types, and the server named by GetSqlInfo', async () => {
    const out = await py({ token: KEY.all, steps: [{ do: 'table_types' }, { do: 'info' }] });
    expect(out.results.map((r) => r.ok)).toEqual([
      ['TOPIC', 'TABLE'],
      { vendor_name: 'topicgate', vendor_version: expect.any(String) },
    ]);
  });
});

describe('statements', () => {
  it('decoded Avro over ADBC equals the REST Arrow output value for value (bigints, decimals, bytes, timestamps)', async () => {
    const sql = `SELECT * FROM payments_avro WHERE ${WINDOW} ORDER BY timestamp_broker LIMIT 2000`;
    const [flight, rest] = await Promise.all([
      ok<Plain>({ token: KEY.all }, { do: 'query', sql }),
      restArrow(KEY.all, sql),
    ]);
    expect(flight.schema).toEqual(rest.schema);
    expect(flight.rows.length).toBeGreaterThan(100);
    expect(bag(flight.rows)).toEqual(bag(rest.rows));
    // The values JSON cannot hold exactly are there: int64 beyond 2^53 and decimals with their scale.
    const text = JSON.stringify(flight.rows);
    expect(text).toMatch(/"900719925474\d{4}"/);
    expect(flight.schema.map((f) => f.type).join(' ')).toMatch(/decimal128\(/);
  });

  it('binary keys and timestamps of a raw topic, and an aggregate, equal the REST Arrow output', async () => {
    for (const sql of [
      `SELECT * FROM orders WHERE ${WINDOW} ORDER BY timestamp_broker LIMIT 1500`,
      `SELECT key, count(*) AS n FROM orders WHERE ${WINDOW} GROUP BY key ORDER BY n DESC LIMIT 50`,
    ]) {
      const [flight, rest] = await Promise.all([
        ok<Plain>({ token: KEY.all }, { do: 'query', sql }),
        restArrow(KEY.all, sql),
      ]);
      expect(flight.schema, sql).toEqual(rest.schema);
      expect(flight.rows.length, sql).toBeGreaterThan(10);
      expect(bag(flight.rows), sql).toEqual(bag(rest.rows));
    }
  });

  it('pyarrow.flight after a basic-token handshake: FlightInfo schema and DoGet rows as ADBC reads them', async () => {
    const sql = `SELECT key, value.amount AS amount, timestamp_broker FROM payments_avro WHERE ${WINDOW} ORDER BY timestamp_broker LIMIT 300`;
    const viaFlight = await ok<Plain & { infoSchema: Plain['schema']; endpoints: number }>(
      { user: 'all-1', password: KEY.all },
      { do: 'flight', sql },
    );
    const rest = await restArrow(KEY.all, sql);
    expect(viaFlight.endpoints).toBe(1);
    expect(viaFlight.infoSchema).toEqual(rest.schema);
    expect(bag(viaFlight.rows)).toEqual(bag(rest.rows));
  });

  it("GetFlightInfo's schema comes from a probe that reads no row from storage", async () => {
    const marker = `probe-${Math.random().toString(36).slice(2)}`;
    const sql = `SELECT key, timestamp_broker FROM orders WHERE key <> '${marker}' AND ${WINDOW} LIMIT 5`;
    const viaFlight = await ok<Plain & { infoSchema: Plain['schema'] }>({ token: KEY.all }, { do: 'flight', sql });
    expect(viaFlight.infoSchema).toEqual(viaFlight.schema);
    const trino = async (path: string) =>
      (await (await fetch(`${trinoUrl()}${path}`, { headers: { 'X-Trino-User': 'test' } })).json()) as unknown;
    const queries = (await trino('/v1/query')) as { queryId: string; query: string }[];
    // The marker is compared with a varbinary column: the SQL holds its bytes as hex.
    const hex = Buffer.from(marker).toString('hex');
    const ours = queries.filter((q) => q.query.toLowerCase().includes(hex));
    const probes = ours.filter((q) => / IS NULL AND .* IS NOT NULL/.test(q.query));
    // A read in time slices runs one query per slice, each with the probe's filter.
    expect(probes.length).toBeGreaterThan(0);
    expect(ours.length).toBeGreaterThan(probes.length);
    for (const probe of probes) {
      const { queryStats } = (await trino(`/v1/query/${probe.queryId}`)) as { queryStats: Record<string, unknown> };
      expect(queryStats.physicalInputPositions, probe.query).toBe(0);
      expect(queryStats.rawInputPositions, probe.query).toBe(0);
    }
  });

  it('a probe statement (WHERE 1=0, LIMIT 0) answers its columns and no row', async () => {
    for (const sql of [
      'SELECT key, timestamp_broker FROM orders WHERE 1=0',
      'SELECT count(*) AS n FROM orders LIMIT 0',
    ]) {
      const out = await ok<Plain>({ token: KEY.all }, { do: 'query', sql });
      expect(out.rows, sql).toEqual([]);
      expect(out.schema.length, sql).toBeGreaterThan(0);
    }
  });

  it('ADBC with a username/password handshake, and a prepared statement executed twice', async () => {
    const sql = `SELECT key, timestamp_broker FROM orders WHERE ${WINDOW} ORDER BY timestamp_broker, key LIMIT 100`;
    const out = await ok<{ first: Plain; second: Plain }>(
      { user: 'all-1', password: KEY.all },
      { do: 'prepared', sql },
    );
    expect(out.first.rows).toHaveLength(100);
    expect(bag(out.second.rows)).toEqual(bag(out.first.rows));
    expect(bag(out.first.rows)).toEqual(bag((await restArrow(KEY.all, sql)).rows));
  });
});

describe('access', () => {
  it('a row policy: its principal reads only its rows, the same as over REST', async () => {
    const sql = `SELECT key, value.customer.country AS country FROM payments_avro WHERE ${WINDOW} LIMIT 5000`;
    const [eu, all, rest] = await Promise.all([
      ok<Plain>({ token: KEY.eu }, { do: 'query', sql }),
      ok<Plain>({ token: KEY.all }, { do: 'query', sql }),
      restArrow(KEY.eu, sql),
    ]);
    expect(eu.rows.length).toBeGreaterThan(0);
    expect(new Set(eu.rows.map((r) => r.country))).toEqual(new Set(['DE']));
    expect(bag(eu.rows)).toEqual(bag(all.rows.filter((r) => r.country === 'DE')));
    expect(bag(eu.rows)).toEqual(bag(rest.rows));
  });

  it('an ungranted topic is NOT_FOUND as a statement; bad SQL is INVALID_ARGUMENT; the server keeps serving', async () => {
    const out = await py({
      token: KEY.eu,
      steps: [
        { do: 'query', sql: 'SELECT * FROM clicks LIMIT 1' },
        { do: 'query', sql: "SELECT * FROM orders; DROP TABLE orders --'" },
        { do: 'query', sql: `SELECT key FROM orders WHERE ${'('.repeat(500)}1=1${')'.repeat(500)} LIMIT 1` },
        { do: 'query', sql: `SELECT key FROM orders WHERE ${WINDOW} LIMIT 3` },
      ],
    });
    const [clicks, injected, deep, fine] = out.results;
    expect(clicks!.error!.message).toMatch(/NOT_FOUND: .*TG_TOPIC_NOT_FOUND/);
    expect(injected!.error!.message).toMatch(/INVALID_ARGUMENT: .*TG_BAD_SQL/);
    expect(deep!.error!.message).toMatch(/INVALID_ARGUMENT: .*TG_BAD_SQL/);
    expect((fine!.ok as Plain).rows).toHaveLength(3);
  });

  it('no credentials, a wrong key, a wrong handshake, a forged token: UNAUTHENTICATED', async () => {
    const none = await py({ steps: [{ do: 'objects' }] });
    expect(none.results[0]!.error!.message).toMatch(/UNAUTHENTICATED: .*TG_UNAUTHENTICATED/);
    const wrong = await py({ token: 'not-a-key', steps: [{ do: 'objects' }] });
    expect(wrong.results[0]!.error!.message).toMatch(/UNAUTHENTICATED/);
    const forged = await py({
      token: 'fh1.AAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA',
      steps: [{ do: 'objects' }],
    });
    expect(forged.results[0]!.error!.message).toMatch(/UNAUTHENTICATED/);
    // The key must be the named principal's.
    const handshake = await py({ user: 'eu-1', password: KEY.all, steps: [{ do: 'objects' }] });
    const refused = handshake.connect ?? handshake.results[0]!.error;
    expect(refused!.message).toMatch(/UNAUTHENTICATED|Unauthenticated/);
    // A refusal never echoes the credential.
    expect(JSON.stringify([none, wrong, forged, handshake])).not.toContain(KEY.all);
  });

  it('a JWT bearer is checked as over REST: its roles grant, an expired one is UNAUTHENTICATED', async () => {
    const eu = await jwt({ sub: 'jwt-eu', roles: ['eu'] }, '1h');
    const tables = (await ok<[string, string, string][]>({ token: eu }, { do: 'objects' })).map(([, , t]) => t);
    expect(tables.sort()).toEqual(['orders', 'payments_avro']);
    const expired = await jwt({ sub: 'jwt-eu', roles: ['eu'] }, Math.floor(Date.now() / 1000) - 60);
    const out = await py({ token: expired, steps: [{ do: 'objects' }] });
    expect(out.results[0]!.error!.message).toMatch(/UNAUTHENTICATED: .*TG_UNAUTHENTICATED/);
  });

  it("a statement's ticket serves only the principal it was made for", async () => {
    const sql = `SELECT key FROM orders WHERE ${WINDOW} LIMIT 3`;
    const out = await py({ token: KEY.all, steps: [{ do: 'cross', sql, token2: KEY.eu }] });
    expect(out.results[0]!.error!.message).toMatch(/TG_FORBIDDEN/);
    expect(out.results[0]!.error!.grpc).toMatch(/Unauthorized|PermissionDenied|FlightUnauthorizedError/);
  });

  it('hostile bytes in tickets, descriptors and actions are INVALID_ARGUMENT, never INTERNAL', async () => {
    const anyOf = (typeUrl: string, value: Buffer) =>
      Buffer.concat([
        Buffer.from([0x0a, typeUrl.length]),
        Buffer.from(typeUrl),
        Buffer.from([0x12, value.length]),
        value,
      ]);
    const hostile = [
      { call: 'do_get', hex: 'deadbeef' },
      { call: 'do_get', hex: '' },
      {
        call: 'do_get',
        hex: packCommand('TicketStatementQuery', { statementHandle: Buffer.from('fs1.x.y.z') }).toString('hex'),
      },
      { call: 'do_get', hex: packCommand('CommandStatementQuery', { query: 'SELECT 1' }).toString('hex') },
      { call: 'info', hex: '' },
      {
        call: 'info',
        hex: anyOf('type.googleapis.com/arrow.flight.protocol.sql.CommandNope', Buffer.alloc(0)).toString('hex'),
      },
      {
        call: 'info',
        hex: anyOf(
          'type.googleapis.com/arrow.flight.protocol.sql.CommandGetTables',
          Buffer.from([0x0a, 0xff]),
        ).toString('hex'),
      },
      {
        call: 'info',
        hex: packCommand('CommandPreparedStatementQuery', { preparedStatementHandle: Buffer.from('nope') }).toString(
          'hex',
        ),
      },
      { call: 'schema', hex: packCommand('TicketStatementQuery', {}).toString('hex') },
      { call: 'path' },
      { call: 'action', type: 'DropEverything', hex: '' },
      { call: 'action', type: 'CreatePreparedStatement', hex: 'ff00ff' },
      {
        call: 'action',
        type: 'ClosePreparedStatement',
        hex: packCommand('ActionClosePreparedStatementRequest', { preparedStatementHandle: Buffer.from('x') }).toString(
          'hex',
        ),
      },
    ];
    const sql = `SELECT key FROM orders WHERE ${WINDOW} LIMIT 2`;
    const out = await py({
      token: KEY.all,
      steps: [...hostile.map((h) => ({ do: 'raw', ...h })), { do: 'query', sql }],
    });
    out.results.slice(0, hostile.length).forEach((r, i) => {
      const where = JSON.stringify(hostile[i]);
      expect(r.error, where).toBeDefined();
      expect(r.error!.grpc, where).not.toMatch(/Internal/);
      expect(r.error!.message, where).toMatch(/TG_BAD_REQUEST|TG_BAD_SQL/);
    });
    expect((out.results[hostile.length]!.ok as Plain).rows).toHaveLength(2);
  });

  it('calls and rows are counted in the Prometheus registry', async () => {
    const res = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${KEY.all}` } });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toMatch(/topicgate_flight_calls_total\{method="DoGet",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/topicgate_flight_calls_total\{method="GetFlightInfo",outcome="refused"\} [1-9]/);
    expect(text).toMatch(/topicgate_rows_streamed_total\{format="flight"\} [1-9]/);
  });
});
