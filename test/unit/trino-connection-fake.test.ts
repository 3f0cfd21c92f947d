/**
 * How the port connects (src/trino/http-trino.ts, trino-credentials.ts) against the fake Trino over HTTP and
 * HTTPS: source and client tags, https verified against a CA bundle, basic authentication with a per-query user,
 * a bearer token read from a file and read again when it is rotated, credentials kept to https and to the
 * configured origin, and never shown in an error; gzip on request.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpTrino, type HttpTrinoOptions } from '../../src/trino/http-trino.js';
import { TrinoRefusedError, TrinoUnavailableError } from '../../src/trino/trino-errors.js';
import { FakeTrinoHttp, rejection } from '../fakes/fake-trino-http.js';
import { makeTestCertificates, type TestCertificates } from '../fakes/fake-trino-tls.js';

const COLUMNS = [{ name: 'n', type: 'integer' }];
const PASSWORD = 'pw-s3cret-value';
let certs: TestCertificates;
let dir: string;
let fake: FakeTrinoHttp | undefined;
beforeAll(() => {
  certs = makeTestCertificates();
  dir = mkdtempSync(join(tmpdir(), 'trino-connection-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

/** A fake Trino answering every query with one row and every nextUri with the last page. */
async function start(tls: boolean): Promise<FakeTrinoHttp> {
  fake = new FakeTrinoHttp(tls ? { key: certs.key, cert: certs.cert } : undefined);
  await fake.start();
  const f = fake;
  f.onPost = () => ({ body: f.page(1, { columns: COLUMNS, data: [[1]] }) });
  f.onGet = () => ({ body: f.page(null, { data: [[2]] }) });
  return f;
}
const header = (name: string) => fake!.log.map((l) => l.headers[name]);
function noSecret(err: unknown, ...secrets: string[]): void {
  const text = `${(err as Error).message}\n${(err as Error).stack}\n${JSON.stringify(err)}`;
  for (const s of secrets) expect(text).not.toContain(s);
}

describe('HttpTrino connection', () => {
  it('sends the source and the client tags of the connection and of the query', async () => {
    const f = await start(false);
    const client = new HttpTrino({ server: f.base, user: 'gw', source: 'topicgate-test', clientTags: ['topicgate'] });
    await client.all('SELECT 1', { clientTags: ['read', 'topic:orders'] });
    await client.all('SELECT 2');
    expect(header('x-trino-source').slice(0, 1)).toEqual(['topicgate-test']);
    expect(f.log.filter((l) => l.method === 'POST').map((l) => l.headers['x-trino-client-tags'])).toEqual([
      'topicgate,read,topic:orders',
      'topicgate',
    ]);
  });

  it.each([
    ['a client tag with a comma', { clientTags: ['a,b'] }, 'not usable as a Trino client tag: "a,b"'],
    ['a session property name with =', { session: { 'a=b': '1' } }, 'not usable as a Trino session property: "a=b"'],
    ['a user with a line break', { user: 'eve\nX-Evil: 1' }, 'not usable as a Trino user: "eve\\nX-Evil: 1"'],
  ])('%s is refused before anything is sent', async (_label, opts, message) => {
    const f = await start(false);
    await expect(new HttpTrino({ server: f.base, user: 'gw' }).query('SELECT 1', opts)).rejects.toThrow(message);
    expect(f.log).toEqual([]);
  });

  it('https: verified against the given CA bundle; refused without it, before any request reaches Trino', async () => {
    const f = await start(true);
    expect(f.base.startsWith('https://')).toBe(true);
    expect((await new HttpTrino({ server: f.base, user: 'gw', ca: certs.ca }).all('SELECT n')).rows).toEqual([
      [1],
      [2],
    ]);
    expect(f.requests()).toHaveLength(2);
    const err = await rejection(new HttpTrino({ server: f.base, user: 'gw' }).query('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoUnavailableError);
    expect((err as Error).message).toMatch(
      /^Trino is not reachable \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)\)$/,
    );
    expect(f.requests()).toHaveLength(2);
  });

  it('password: basic authentication as the connection user on every request; the query runs as its own user', async () => {
    const f = await start(true);
    const client = new HttpTrino({ server: f.base, user: 'gw', password: PASSWORD, ca: certs.ca });
    const r = await client.query('SELECT n', { user: 'alice' });
    await r.cancel();
    await client.cancel('q1');
    const basic = `Basic ${Buffer.from(`gw:${PASSWORD}`).toString('base64')}`;
    expect(f.log.map((l) => [l.method, l.headers.authorization, l.headers['x-trino-user']])).toEqual([
      ['POST', basic, 'alice'],
      ['DELETE', basic, 'alice'],
      ['DELETE', basic, 'gw'],
    ]);
  });

  it('a wrong password: TrinoRefusedError(401), one POST, and the password in no message', async () => {
    const f = await start(true);
    f.onPost = () => ({ status: 401, body: 'Unauthorized' });
    const client = new HttpTrino({ server: f.base, user: 'gw', password: PASSWORD, ca: certs.ca });
    const err = await rejection(client.query('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoRefusedError);
    expect([(err as TrinoRefusedError).httpStatus, (err as Error).message]).toEqual([
      401,
      "Trino did not accept the gateway's credentials (HTTP 401)",
    ]);
    noSecret(err, PASSWORD, Buffer.from(`gw:${PASSWORD}`).toString('base64'));
    expect(f.requests()).toEqual(['POST /v1/statement']);
  });

  it('token file: the bearer token is read again when the file changes', async () => {
    const f = await start(true);
    const file = join(dir, 'token-a');
    writeFileSync(file, 'token-one\n');
    const client = new HttpTrino({ server: f.base, user: 'gw', tokenFile: file, ca: certs.ca, ...recheck(0) });
    await client.all('SELECT 1');
    writeFileSync(file, 'token-two-longer\n');
    await client.all('SELECT 2');
    expect(header('authorization')).toEqual([
      'Bearer token-one',
      'Bearer token-one',
      'Bearer token-two-longer',
      'Bearer token-two-longer',
    ]);
  });

  it('token file: a 401 reads the file at once and tries again with a rotated token, once', async () => {
    const f = await start(true);
    f.onPost = (_sql, h) =>
      h.authorization === 'Bearer fresh' ? { body: f.page(null, { columns: COLUMNS, data: [[1]] }) } : { status: 401 };
    const file = join(dir, 'token-b');
    writeFileSync(file, 'stale');
    const client = new HttpTrino({ server: f.base, user: 'gw', tokenFile: file, ca: certs.ca, ...recheck(3_600_000) });
    const err = await rejection(client.query('SELECT 1'));
    expect((err as TrinoRefusedError).httpStatus).toBe(401);
    noSecret(err, 'stale');
    writeFileSync(file, 'fresh');
    expect((await client.all('SELECT 1')).rows).toEqual([[1]]);
    expect(header('authorization')).toEqual(['Bearer stale', 'Bearer stale', 'Bearer fresh']);
  });

  it('token file missing: TrinoUnavailableError naming the file, nothing sent', async () => {
    const f = await start(true);
    const file = join(dir, 'no-such-token');
    const err = await rejection(
      new HttpTrino({ server: f.base, user: 'gw', tokenFile: file, ca: certs.ca }).query('SELECT 1'),
    );
    expect(unavailableMessage(err)).toBe(`TOPICGATE_TRINO_TOKEN_FILE: cannot read ${file} (ENOENT)`);
    expect(f.log).toEqual([]);
  });

  it('credentials over plain http, or in the URL, are refused when the port is made', () => {
    const attempts: HttpTrinoOptions[] = [
      { server: 'http://127.0.0.1:1', user: 'gw', password: PASSWORD },
      { server: 'http://127.0.0.1:1', user: 'gw', tokenFile: '/dev/null' },
      { server: `https://gw:${PASSWORD}@127.0.0.1:1`, user: 'gw' },
      { server: 'https://127.0.0.1:1', user: 'gw', password: PASSWORD, tokenFile: '/dev/null' },
    ];
    const messages = attempts.map((o) => {
      try {
        new HttpTrino(o);
        return 'accepted';
      } catch (err) {
        noSecret(err, PASSWORD);
        return (err as Error).message;
      }
    });
    expect(messages).toEqual([
      'Trino credentials are sent over https only, and the Trino URL is http://',
      'Trino credentials are sent over https only, and the Trino URL is http://',
      'the Trino URL must not carry credentials',
      'Trino credentials: a password or a token file, not both',
    ]);
  });

  it('with credentials, a nextUri on another origin is not followed', async () => {
    const f = await start(true);
    const elsewhere = f.uri(1).replace('127.0.0.1', 'localhost');
    f.onPost = () => ({ body: { ...f.page(null, { stats: { state: 'QUEUED' } }), nextUri: elsewhere } });
    const client = new HttpTrino({ server: f.base, user: 'gw', password: PASSWORD, ca: certs.ca });
    const err = await rejection(client.query('SELECT 1'));
    expect(unavailableMessage(err)).toMatch(
      /^Trino sent a nextUri on https:\/\/localhost:\d+, not on https:\/\/127\.0\.0\.1:\d+;/,
    );
    expect(f.requests()).toEqual(['POST /v1/statement']);
  });

  it.each([
    [true, 'gzip'],
    [false, undefined],
  ])('gzip: %s -> Accept-Encoding %s, and the answer is read either way', async (gzip, accept) => {
    const f = await start(false);
    f.onPost = () => ({ body: f.page(null, { columns: COLUMNS, data: [[42]] }), gzip });
    expect((await new HttpTrino({ server: f.base, user: 'gw', gzip }).all('SELECT 42')).rows).toEqual([[42]]);
    expect(header('accept-encoding')).toEqual([accept]);
  });
});

function recheck(ms: number): Partial<HttpTrinoOptions> {
  return { tokenRecheckMs: ms };
}

function unavailableMessage(err: unknown): string {
  expect(err).toBeInstanceOf(TrinoUnavailableError);
  return (err as Error).message;
}
