/**
 * The hostile corpus (test/cases/hostile-corpus.ts) through the surfaces beside the reads: load names, targets,
 * topics, selects, filters and times; read-session bodies, stream tokens and formats; a follow's event ids
 * (`Last-Event-ID`, `after`); batch tokens; the `Host` header. Nothing may give a 5xx or change a topic table; every
 * refusal is a 4xx with a stable TG_ code; no load is defined on a target that is not a plain name inside the load
 * targets.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE } from '../cases/hostile-corpus.js';
import { sql, testApp } from '../helpers.js';

const RUN = randomBytes(3).toString('hex');
const W = { since: '2026-11-01T00:00:00Z', until: '2026-11-01T01:00:00Z' };
let app: FastifyInstance;
let before: unknown[][];
const counts = () =>
  sql('SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM clicks), (SELECT count(*) FROM orders_expanded)');

beforeAll(async () => {
  app = await testApp();
  before = await counts();
});
afterAll(async () => {
  expect(await counts()).toEqual(before);
  await app.close();
});

/** Any answer but a 5xx; a refusal carries a TG_ code. Returns the status. */
async function answered(opts: InjectOptions, what: string): Promise<number> {
  const res = await app.inject(opts);
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 400) expect(res.json().error.code, what).toMatch(/^TG_[A-Z_]+$/);
  return res.statusCode;
}

/** A header can carry neither NUL, CR, LF nor a character outside Latin-1 (Node refuses to send one). */
const headerSafe = (s: string) => /^[\x20-\x7e\t]*$/.test(s);
const IN_URLS = HOSTILE.filter((s) => s.isWellFormed());

describe('hostile loads', () => {
  it.each(HOSTILE)('as a load name, target, topic, select, where, start, settle, until: %j', async (s) => {
    const name = `hostile-${RUN}`;
    const target = `lake.hostile_${RUN}.t`;
    const body = { topic: 'orders', target, start: W.since };
    const puts: [string, Record<string, unknown>][] = [
      ['target', { ...body, target: s }],
      ['target table', { ...body, target: `lake.hostile_${RUN}.${s}` }],
      ['target schema', { ...body, target: `lake.${s}.t` }],
      ['target catalog', { ...body, target: `${s}.x.t` }],
      ['topic', { ...body, topic: s }],
      ['select', { ...body, select: [s] }],
      ['where', { ...body, where: { field: s, op: 'eq', value: s } }],
      ['where value', { ...body, where: { field: 'key', op: 'eq', value: s } }],
      ['start', { ...body, start: s }],
      ['settle', { ...body, settle: s }],
    ];
    for (const [what, payload] of puts) {
      const status = await answered(
        { method: 'PUT', url: `/v1/loads/${name}-${what.replace(' ', '-')}`, payload },
        what,
      );
      // A hostile text is never a target, a topic or a column: only a value may be accepted (it is data), and a
      // plain lower-case name (`_`) is a table name like any other.
      const plainName = (what === 'target table' || what === 'target schema') && /^[a-z_][a-z0-9_]*$/.test(s);
      if (what !== 'where value' && !plainName) expect(status, what).toBeGreaterThanOrEqual(400);
    }
    if (s.isWellFormed()) {
      await answered({ method: 'PUT', url: `/v1/loads/${encodeURIComponent(s)}`, payload: body }, 'name');
      await answered({ url: `/v1/loads/${encodeURIComponent(s)}` }, 'name');
      await answered({ method: 'POST', url: `/v1/loads/${encodeURIComponent(s)}/runs`, payload: {} }, 'run name');
    }
    await answered({ method: 'POST', url: `/v1/loads/${name}-where-value/runs`, payload: { until: s } }, 'until');
  });
});

describe('hostile read sessions', () => {
  let streamUrl: string;
  beforeAll(async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/sessions',
      payload: { ...W, streams: 1 },
    });
    expect(r.statusCode, r.body).toBe(201);
    streamUrl = (r.json() as { streams: { url: string }[] }).streams[0]!.url;
  });

  it.each(HOSTILE)('in a session body, as a stream token, a stream format: %j', async (s) => {
    const url = '/v1/topics/orders/sessions';
    // `*` is every column, as in PostgREST's select: not hostile there.
    for (const [what, payload] of [
      ...(s === '*' ? [] : ([['select', { ...W, select: [s] }]] as const)),
      ['where', { ...W, where: { field: s, op: 'eq', value: 'x' } }],
      ['since', { ...W, since: s }],
      ['order', { ...W, order: s }],
    ] as const) {
      expect(await answered({ method: 'POST', url, payload }, what), what).toBeGreaterThanOrEqual(400);
    }
    await answered({ method: 'POST', url, payload: { ...W, where: { field: 'key', op: 'eq', value: s } } }, 'value');
    if (!s.isWellFormed()) return;
    const [path, query] = streamUrl.split('?') as [string, string];
    const token = new URLSearchParams(query).get('token')!;
    const forged = [s, `${token}${s}`, `${s}${token}`, token.slice(0, 10) + s + token.slice(10 + s.length)];
    for (const t of forged) {
      const status = await answered({ url: `${path}?token=${encodeURIComponent(t)}&format=ndjson` }, 'token');
      expect(status, `token ${JSON.stringify(t)}`).toBeGreaterThanOrEqual(400);
    }
    const status = await answered({ url: `${streamUrl}&format=${encodeURIComponent(s)}` }, 'format');
    expect(status).toBeGreaterThanOrEqual(400);
  });
});

describe('hostile follow ids and batch tokens', () => {
  it.each(IN_URLS)('as after=, Last-Event-ID and a batch token: %j', async (s) => {
    const url = `/v1/topics/orders/events?since=${W.since}&until=${W.until}&follow=true&format=ndjson`;
    expect(await answered({ url: `${url}&after=${encodeURIComponent(s)}` }, 'after')).toBeGreaterThanOrEqual(400);
    if (headerSafe(s) && s.trim() !== '') {
      const status = await answered({ url, headers: { 'last-event-id': s } }, 'Last-Event-ID');
      expect(status).toBeGreaterThanOrEqual(400);
    }
    const cursor = `hostile-${RUN}`;
    await answered({ method: 'PUT', url: `/v1/cursors/${cursor}`, payload: { topic: 'orders' } }, 'cursor');
    const commit = { method: 'POST' as const, url: `/v1/cursors/${cursor}/commit`, payload: { batch: s } };
    expect(await answered(commit, 'batch')).toBeGreaterThanOrEqual(400);
  });
});

describe('hostile Host headers', () => {
  it.each(HOSTILE.filter(headerSafe))('as the Host: %j', async (s) => {
    const status = await answered({ url: '/v1/topics', headers: { host: s } }, 'host');
    // Only a loopback name (or an allowed one) is served: a page reached by DNS rebinding names its own host.
    expect(status, `Host ${JSON.stringify(s)}`).toBeGreaterThanOrEqual(400);
  });
});
