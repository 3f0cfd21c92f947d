/**
 * Read sessions in tests: make one, read its streams, and read the same body with `limit=all` to compare against
 * (NDJSON byte for byte, Arrow value for value). They drive an app (`app.inject`) or real gateways over HTTP
 * (test/http-target.ts), through one `Target`.
 */
import { expect } from 'vitest';
import { tableFromIPC } from 'apache-arrow';

export interface TestSession {
  id: string;
  expiresAt: string;
  columns: { name: string; type: string }[];
  order: 'time' | 'none';
  streams: { index: number; url: string; since: string; until: string; estimatedRows: number }[];
}

type Headers = Record<string, string>;

/** What the helpers send requests to: a fastify app, or gateways over HTTP with the same `inject` (http-target.ts). */
export interface Target {
  inject(opts: {
    method?: 'GET' | 'POST';
    url: string;
    payload?: Record<string, unknown>;
    headers?: Headers;
  }): Promise<{ statusCode: number; body: string; rawPayload: Buffer; json(): unknown }>;
}

/** POSTs a session; expects the 201 and checks that its streams tile since..until. */
export async function createSession(
  app: Target,
  topic: string,
  body: Record<string, unknown>,
  headers: Headers = {},
): Promise<TestSession> {
  const res = await app.inject({ method: 'POST', url: `/v1/topics/${topic}/sessions`, payload: body, headers });
  expect(res.statusCode, res.body).toBe(201);
  const s = res.json() as TestSession;
  expect(s.streams.map((x) => x.index)).toEqual(s.streams.map((_, i) => i));
  for (let i = 1; i < s.streams.length; i++) expect(s.streams[i]!.since).toBe(s.streams[i - 1]!.until);
  return s;
}

/** Reads one stream in `format`; expects a 200. */
export async function readStream(app: Target, url: string, format: string, headers: Headers = {}): Promise<Buffer> {
  const res = await app.inject({ url: `${url}&format=${format}`, headers });
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  return res.rawPayload;
}

/** The row lines of a complete NDJSON body (it ends with an empty line). */
export function ndjsonLines(body: Buffer | string): string[] {
  const text = body.toString();
  expect(text.endsWith('\n')).toBe(true);
  const lines = text.split('\n');
  expect(lines.at(-1)).toBe('');
  return lines.slice(0, -1).filter((l) => l !== '');
}

/** Every row of Arrow streams, in order, as plain values (Binary as bytes, Int64 as bigint). */
export function arrowRows(bodies: Buffer[]): unknown[] {
  return bodies.flatMap((b) =>
    tableFromIPC(b)
      .toArray()
      .map((r) => r.toJSON()),
  );
}

/**
 * Arrow rows as text, value by value: bigint as its digits, bytes as hex, nested vectors as arrays, timestamps as
 * their numbers (so two rows are equal exactly when every value is).
 */
export function plain(rows: unknown[]): string[] {
  const value = (_k: string, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `\\x${Buffer.from(v).toString('hex')}` : v;
  return rows.map((r) => JSON.stringify(r, value));
}

/** The same read as one `limit=all` response of `/query`. */
export async function bulkRead(
  app: Target,
  topic: string,
  body: Record<string, unknown>,
  format: string,
  headers: Headers = {},
): Promise<Buffer> {
  const { streams: _s, presign: _p, order, ...rest } = body;
  const payload = { ...rest, ...(order === 'none' ? { order: 'none' } : {}), limit: 'all', format };
  const res = await app.inject({ method: 'POST', url: `/v1/topics/${topic}/query`, payload, headers });
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  return res.rawPayload;
}

/** The streams of a session read in index order (concurrently), each body. */
export async function readAll(app: Target, s: TestSession, format: string, headers: Headers = {}): Promise<Buffer[]> {
  return Promise.all(s.streams.map((x) => readStream(app, x.url, format, headers)));
}

/**
 * Checks a session's union against the `limit=all` read of its body: NDJSON byte for byte (in index order, or as
 * a multiset with order `none`), Arrow value for value. The session is made on `app`, its streams read from
 * `streams` (another instance, or several: `app` by default). Returns the session, its rows and their NDJSON lines.
 */
export async function expectUnionIsBulk(
  app: Target,
  topic: string,
  body: Record<string, unknown>,
  headers: Headers = {},
  streams: Target = app,
): Promise<{ session: TestSession; rows: number; lines: string[] }> {
  const session = await createSession(app, topic, body, headers);
  const ordered = body.order !== 'none';
  const whole = ndjsonLines(await bulkRead(app, topic, body, 'ndjson', headers));
  const parts = (await readAll(streams, session, 'ndjson', headers)).flatMap(ndjsonLines);
  if (ordered) expect(parts.join('\n')).toBe(whole.join('\n'));
  else expect([...parts].sort()).toEqual([...whole].sort());
  const arrowWhole = arrowRows([await bulkRead(app, topic, body, 'arrow', headers)]);
  const arrowParts = arrowRows(await readAll(streams, session, 'arrow', headers));
  const [a, b] = [plain(arrowParts), plain(arrowWhole)];
  expect(ordered ? a : a.sort()).toEqual(ordered ? b : b.sort());
  return { session, rows: whole.length, lines: parts };
}
