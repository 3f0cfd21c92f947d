/**
 * A follow ends with its caller's token (API.md "Following a topic"), on the real Trino: a JWT whose `exp` is a few
 * seconds ahead follows a topic as Server-Sent Events and as NDJSON; an event appended after `exp` never reaches
 * them: each gets the error naming TG_UNAUTHENTICATED (an `error` event; an error line) and the end of the
 * response. The client then follows again with a fresh token from the last event id, and gets every event after
 * the cut once: nothing repeated, nothing missing.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { openEvents, type EventStream } from '../follow-client.js';
import { testConfig, trinoUrl } from '../helpers.js';

const SCHEMA = 'followexp|kafka_topics';
const table = `t_${randomBytes(4).toString('hex')}`;
const fq = `vast."${SCHEMA}"."${table}"`;
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-follow-expiry-'));
const SECRET = 'follow-expiry-test-secret-of-32-bytes-or-more';
/** Events are stamped this far ahead, so an insert slower than the settle time is still seen (follow.test.ts). */
const LEAD_MS = 3_000;
const SINCE = new Date(Date.now() - 3_600_000).toISOString();
const HEADERS = 'array(row(key varchar, value varbinary))';
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await trino.all(`CREATE TABLE ${fq} (${TOPIC_COLUMNS})`);
  writeFileSync(join(dir, 'secret'), SECRET);
  writeFileSync(
    join(dir, 'c.yaml'),
    stringify({
      topics: { [table]: { settle: '1s' } },
      auth: { jwt: { secretFile: join(dir, 'secret'), issuer: 'https://idp.test/', audience: 'topicgate' } },
      access: [{ roles: ['reader'], topics: [table], actions: ['read'] }],
    }),
  );
  app = await buildApp(
    testConfig({
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_CONFIG: join(dir, 'c.yaml'),
      TOPICGATE_CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-bytes-for-this-test',
      // Each poll past the horizon is a Trino query: the follows mostly wait (for `exp`, for an insert to settle), and
      // their end at `exp` comes from the credential's own timer, not from a poll (http/follow-access.ts).
      TOPICGATE_FOLLOW_POLL: '500ms',
      TOPICGATE_FOLLOW_HEARTBEAT: '300ms',
    }),
    { logger: false },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app?.close();
  await trino.all(`DROP TABLE IF EXISTS ${fq}`);
  rmSync(dir, { recursive: true, force: true });
});

/** A bearer token of a reader that expires at `exp` (epoch seconds). */
async function bearer(exp: number): Promise<Record<string, string>> {
  const jwt = await new SignJWT({ sub: 'follower', roles: ['reader'], iss: 'https://idp.test/', aud: 'topicgate' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(SECRET));
  return { authorization: `Bearer ${jwt}` };
}

/** Appends one event with key `key`, stamped `at` (epoch ms). */
async function append(key: string, at: number): Promise<void> {
  const ts = `TIMESTAMP '${trinoTimestampText(at)}'`;
  await trino.all(
    `INSERT INTO ${fq} VALUES (to_utf8('${key}'), to_utf8('{}'), ${ts}, ${ts}, CAST(ARRAY[] AS ${HEADERS}))`,
  );
}

const keyOf = (data: string) => (JSON.parse(data) as { key: string }).key;
const rowKeys = (s: EventStream) => s.events.filter((e) => e.event === undefined).map((e) => keyOf(e.data));
const errorsOf = (s: EventStream) => s.events.filter((e) => e.event === 'error').map((e) => JSON.parse(e.data));

/** An NDJSON follow, its body as it comes and whether it ended. */
function openLines(url: string, headers: Record<string, string>) {
  const got = { text: '', ended: false };
  const req = http.get(url, { headers }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (got.text += chunk));
    const over = () => (got.ended = true);
    res.on('end', over);
    res.on('error', over);
    res.on('close', over);
  });
  req.on('error', () => (got.ended = true));
  return { got, lines: () => got.text.split('\n').filter((l) => l !== ''), cut: () => req.destroy() };
}

async function until(ok: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a follow ends when its token expires', () => {
  it('sends the TG_UNAUTHENTICATED error and ends, never an event past exp; a fresh token resumes exactly', async () => {
    await append('a', Date.now() - 60_000);
    // Far enough ahead for both follows to read the first event on a busy machine.
    const exp = Math.floor(Date.now() / 1000) + 12;
    const url = `${base}/v1/topics/${table}/events?follow=true&since=${SINCE}`;
    const sse = await openEvents(url, { headers: await bearer(exp) });
    const nd = openLines(`${url}&format=ndjson`, await bearer(exp));
    expect(sse.status).toBe(200);
    await sse.waitFor((s) => rowKeys(s).includes('a'), 60_000);
    await until(() => nd.lines().length > 0, 'the NDJSON follow reads the first event');

    // An event appended once the token has expired.
    await until(() => Date.now() > exp * 1000, 'the token expires');
    await append('b', Date.now() + LEAD_MS);
    await sse.waitFor((s) => s.ended || errorsOf(s).length > 0 || rowKeys(s).includes('b'), 60_000);
    if (errorsOf(sse).length > 0) await sse.waitFor((s) => s.ended, 60_000);
    expect(rowKeys(sse)).toEqual(['a']);
    expect(errorsOf(sse)).toEqual([
      { error: { code: 'TG_UNAUTHENTICATED', message: expect.any(String), status: 401 } },
    ]);
    expect(sse.events.at(-1)!.event).toBe('error');
    expect(sse.ended).toBe(true);
    await until(() => nd.got.ended, 'the NDJSON follow ends');
    const lines = nd.lines().map((l) => JSON.parse(l) as { key?: string; error?: { code: string; status: number } });
    expect(lines.map((l) => l.key ?? l.error?.code)).toEqual(['a', 'TG_UNAUTHENTICATED']);
    expect(lines.at(-1)!.error!.status).toBe(401);

    // The client follows again with a fresh token from the last id it was sent: the rest, once.
    const again = await openEvents(url, { lastEventId: sse.lastId, headers: await bearer(exp + 3600) });
    expect(again.status).toBe(200);
    await append('c', Date.now() + LEAD_MS);
    await again.waitFor((s) => rowKeys(s).includes('c'), 60_000);
    again.cut();
    expect([...rowKeys(sse), ...rowKeys(again)]).toEqual(['a', 'b', 'c']);
    expect(errorsOf(again)).toEqual([]);
  });

  it('refuses a follow whose token has already expired before the response starts', async () => {
    // Within the verifier's clock tolerance (30 s) the token authenticates; the follow still refuses it.
    const headers = await bearer(Math.floor(Date.now() / 1000) - 5);
    const res = await fetch(`${base}/v1/topics/${table}/events?follow=true&since=${SINCE}`, { headers });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TG_UNAUTHENTICATED');
  });
});
