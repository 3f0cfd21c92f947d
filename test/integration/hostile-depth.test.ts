/**
 * Hostile depth: every recursive construct of a request (not. chains, or/and groups, nested negated groups, JSON
 * arrow paths, select and order expressions, POST `where` trees, JSON bodies, cursor filters) nested 10^2..10^5
 * deep, through the real gateway and Trino. Every answer is a 4xx with a TG_ code within a second (never a 500 from
 * a stack overflow, never a 502 from SQL Trino cannot parse), and the gateway serves a normal request afterwards.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { testApp } from '../helpers.js';

const DEPTHS = [100, 1_000, 10_000, 100_000];
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z';
const W = { since: '2026-11-01T00:00:00Z', until: '2026-11-01T01:00:00Z' };
const dir = mkdtempSync(join(tmpdir(), 'topicgate-depth-'));

let app: FastifyInstance;
/** The same gateway with limits.maxDepth at the most it can be set to. */
let deepest: FastifyInstance;
/** Milliseconds per refusal at 10^5, by construct. */
const at100k: [string, number][] = [];

beforeAll(async () => {
  const config = join(dir, 'depth.yaml');
  writeFileSync(config, stringify({ limits: { maxDepth: 256 } }));
  [app, deepest] = await Promise.all([testApp(), testApp({ TOPICGATE_CONFIG: config })]);
  // The first request of an app loads the topic catalog from Trino: not what is timed here.
  for (const a of [app, deepest])
    expect((await a.inject(`/v1/topics/orders/events?${WINDOW}&limit=1`)).statusCode).toBe(200);
});
afterAll(async () => {
  await Promise.all([app?.close(), deepest?.close()]);
  rmSync(dir, { recursive: true, force: true });
  if (at100k.length > 0) {
    const sorted = at100k.sort((a, b) => a[1] - b[1]);
    const shown = ([what, ms]: [string, number]) => `${what} ${ms.toFixed(1)} ms`;
    process.stderr.write(
      `[hostile-depth] ${sorted.length} refusals at 10^5: median ${shown(sorted[sorted.length >> 1]!)}, ` +
        `slowest ${sorted.slice(-3).map(shown).join(', ')}\n`,
    );
  }
});

const nest = (open: string, inner: string, close: string, n: number) => `${open.repeat(n)}${inner}${close.repeat(n)}`;
const LEAF = '{"field":"key","op":"eq","value":"a"}';
/** JSON text of `where` trees `n` deep (built as text: a test cannot JSON.stringify what it sends either). */
const notWhere = (n: number) => nest('{"not":', LEAF, '}', n);
const groupWhere = (kind: 'and' | 'or', n: number) =>
  `${`{"${kind}":[`.repeat(n)}${LEAF}${',{"field":"key","op":"neq","value":"b"}]}'.repeat(n)}`;

/** GET parameters of each recursive construct, `n` deep. */
const GETS: [string, (n: number) => string][] = [
  ['not. chain', (n) => `key=${'not.'.repeat(n)}eq.a`],
  ['not. chain on a JSON path', (n) => `value->>status=${'not.'.repeat(n)}eq.a`],
  ['or groups', (n) => `or=(${nest('or(', 'key.eq.a', ')', n)})`],
  ['and groups', (n) => `and=(${nest('and(', 'key.eq.a,key.eq.b', ')', n)})`],
  ['negated nested groups', (n) => `not.or=(${nest('not.and(', 'key.eq.a', ')', n)})`],
  ['not. chain inside a group', (n) => `or=(key.${'not.'.repeat(n)}eq.a,key.eq.b)`],
  ['bare parentheses in a group', (n) => `or=(${nest('(', 'key.eq.a', ')', n)})`],
  ['a JSON arrow path filter', (n) => `value${'->a'.repeat(n)}->>b=eq.1`],
  ['a JSON arrow path with quoted keys', (n) => `value${'->"a"'.repeat(n)}=is.null`],
  ['a selected JSON path', (n) => `select=value${'->a'.repeat(n)}`],
  ['a renamed selected path', (n) => `select=x:value${'->a'.repeat(n)}`],
  ['an ordered JSON path', (n) => `order=value${'->a'.repeat(n)}.desc`],
  ['nested in-list parentheses', (n) => `key=in.(${nest('(', 'a', ')', n)})`],
  ['nested any-list braces', (n) => `key=eq(any).${nest('{', 'a', '}', n)}`],
];

/** POST body members (JSON text) of each recursive construct, `n` deep. */
const POSTS: [string, (n: number) => string][] = [
  ['where not', (n) => `"where":${notWhere(n)}`],
  ['where and', (n) => `"where":${groupWhere('and', n)}`],
  ['where or', (n) => `"where":${groupWhere('or', n)}`],
  ['a deep filter value', (n) => `"where":{"field":"key","op":"in","value":${nest('[', '"a"', ']', n)}}`],
  ['a deep select item', (n) => `"select":${nest('[', '"key"', ']', n)}`],
  ['a deep unknown member', (n) => `"x":${nest('{"a":', '1', '}', n)}`],
  ['a deep JSON path field', (n) => `"where":{"field":"value${'->a'.repeat(n)}","op":"is","value":null}`],
  ['a deep aggregate path', (n) => `"select":[{"fn":"max","field":"value${'->a'.repeat(n)}"}]`],
];
const WHERES = POSTS.slice(0, 3);

const json = (method: 'POST' | 'PUT', url: string, payload: string): InjectOptions => ({
  method,
  url,
  payload,
  headers: { 'content-type': 'application/json' },
});

/** GET constructs whose deep text is data (a value holding parentheses or braces): a 200 is a right answer too. */
const DATA = new Set(['nested in-list parentheses', 'nested any-list braces']);

/** The answer, timed, checked: a 4xx with a TG_ code within a second. */
async function refused(
  on: FastifyInstance,
  req: InjectOptions | string,
  what: string,
  n: number,
  data = false,
): Promise<number> {
  const started = performance.now();
  const res = await on.inject(req);
  const ms = performance.now() - started;
  if (n === 100_000 && res.statusCode !== 200) at100k.push([what, ms]);
  expect(res.statusCode, `${what} at ${n}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (!(data && res.statusCode === 200)) {
    expect(res.statusCode, `${what} at ${n}: ${res.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
    expect(res.json().error.code, what).toMatch(/^TG_[A-Z_]+$/);
  }
  // A refusal comes within a second; data a query answers takes what Trino takes (a few hundred ms on a quiet machine).
  expect(ms, `${what} at ${n}`).toBeLessThan(res.statusCode === 200 ? 5000 : 1000);
  return res.statusCode;
}

describe.each(DEPTHS)('nested %i deep', (n) => {
  it.each(GETS)('GET %s', async (what, param) => {
    const url = `/v1/topics/orders/events?${param(n)}&${WINDOW}&limit=1`;
    await refused(app, url, `GET ${what}`, n, DATA.has(what));
  });

  it.each(POSTS)('POST %s', async (what, member) => {
    const payload = `{"since":"${W.since}","until":"${W.until}","limit":1,${member(n)}}`;
    await refused(app, json('POST', '/v1/topics/orders/query', payload), `POST ${what}`, n);
  });

  it.each(WHERES)('cursor filter: %s', async (what, member) => {
    const payload = `{"topic":"orders",${member(n).replace('"where":', '"filter":')}}`;
    await refused(app, json('PUT', `/v1/cursors/deep-${n}`, payload), `cursor ${what}`, n);
  });

  it('a not. chain with limits.maxDepth at its ceiling (256): refused past it', async () => {
    const url = `/v1/topics/orders/events?key=${'not.'.repeat(n)}eq.a&${WINDOW}&limit=1`;
    if (n < 256) expect((await deepest.inject(url)).statusCode).toBe(200);
    else expect(await refused(deepest, url, 'GET not. chain, limits.maxDepth 256', n)).toBe(422);
  });
});

describe('at the cap the request reaches Trino and is answered', () => {
  const ok = async (on: FastifyInstance, query: string) => {
    const res = await on.inject(`/v1/topics/orders/events?${query}&${WINDOW}&limit=1`);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  };

  it('the default (64): 63 not. prefixes pass, 64 are a 422 naming limits.maxDepth', async () => {
    await ok(app, `key=${'not.'.repeat(63)}eq.a`);
    const res = await app.inject(`/v1/topics/orders/events?key=${'not.'.repeat(64)}eq.a&${WINDOW}&limit=1`);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'TG_TOO_EXPENSIVE',
      details: { limit: 'maxDepth', max: 64, found: 65, parameter: 'where' },
    });
    expect(res.json().error.message).toContain('limits.maxDepth = 64');
  });

  it('the ceiling (256): the deepest filter the parsers let through is SQL Trino parses', async () => {
    await ok(deepest, `key=${'not.'.repeat(255)}eq.a`);
    // Eight nested groups, each negated, around a 200-deep not. chain: 218 levels of NOT and parentheses.
    const groups = nest('not.or(', `key.${'not.'.repeat(200)}eq.a,key.eq.b`, ')', 8);
    await ok(deepest, `or=(${groups},key.eq.c)`);
  });

  it('a POST body at the cap passes the parser (and meets the where rule of 8 levels), one past is a 422', async () => {
    // {"where": ...} is one level, the leaf one more: 62 nots make 64.
    const body = (nots: number) => json('POST', '/v1/topics/orders/query', `{"where":${notWhere(nots)}}`);
    const at = await app.inject(body(62));
    expect(at.json().error).toMatchObject({ code: 'TG_BAD_REQUEST', message: 'where: nests deeper than 8 levels' });
    const past = await app.inject(body(63));
    expect(past.json().error).toMatchObject({
      code: 'TG_TOO_EXPENSIVE',
      details: { limit: 'maxDepth', max: 64, found: 65 },
    });
  });
});

describe('afterwards', () => {
  it('the gateway still serves', async () => {
    const res = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=2`);
    expect(res.statusCode).toBe(200);
  });
});
