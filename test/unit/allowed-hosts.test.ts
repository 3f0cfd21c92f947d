/**
 * The Host check (server/plugins/allowed-hosts.ts): the names a gateway answers for by default and by
 * TOPICGATE_ALLOWED_HOSTS, and a request naming another (a DNS-rebinding page's) refused with 421 before any route
 * or authentication runs.
 */
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import allowedHostsPlugin, { hostRule, isAllowedHost } from '../../src/server/plugins/allowed-hosts.js';

const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

const ruleOf = (env: Record<string, string>) => hostRule(loadConfig(env));

describe('the hosts a gateway answers for', () => {
  const loopback = ruleOf({});
  it.each([
    ['localhost', true],
    ['localhost:3000', true],
    ['LOCALHOST:80', true],
    ['127.0.0.1', true],
    ['127.0.0.1:3000', true],
    ['127.1.2.3:8080', true],
    ['[::1]', true],
    ['[::1]:3000', true],
    ['app.localhost:3000', true],
    // Browsers always send Host; a request without one (HTTP/1.0 health checks) cannot come from a rebinding page.
    [undefined, true],
    ['evil.example', false],
    ['evil.example:3000', false],
    ['127.0.0.1.evil.example', false],
    ['localhost.evil.example', false],
    ['[::2]:3000', false],
    ['10.0.0.5:3000', false],
    ['[::1', false],
  ])('by default, on loopback: %s -> %s', (host, expected) => {
    expect(isAllowedHost(loopback, host)).toBe(expected);
  });

  const configured = ruleOf({ TOPICGATE_ALLOWED_HOSTS: 'api.example.com,gw.example:8443,*.corp.example' });
  it.each([
    ['api.example.com', true],
    ['API.example.com:3000', true],
    ['gw.example:8443', true],
    ['gw.example:9999', false],
    ['gw.example', false],
    ['a.corp.example', true],
    ['a.b.corp.example:443', true],
    ['corp.example', false],
    ['evilcorp.example', false],
    ['localhost:3000', true],
    ['evil.example', false],
  ])('TOPICGATE_ALLOWED_HOSTS: %s -> %s', (host, expected) => {
    expect(isAllowedHost(configured, host)).toBe(expected);
  });

  it('`*` answers any Host', () => {
    expect(isAllowedHost(ruleOf({ TOPICGATE_ALLOWED_HOSTS: '*' }), 'evil.example')).toBe(true);
  });

  it('the listen address is answered: a name, or every local address when listening on all of them', () => {
    expect(isAllowedHost(ruleOf({ TOPICGATE_HOST: 'gw.internal' }), 'gw.internal:3000')).toBe(true);
    expect(isAllowedHost(ruleOf({ TOPICGATE_HOST: '10.1.2.3' }), '10.1.2.3:3000')).toBe(true);
    expect(isAllowedHost(ruleOf({ TOPICGATE_HOST: '10.1.2.3' }), '10.1.2.4:3000')).toBe(false);
    const all = ruleOf({ TOPICGATE_HOST: '0.0.0.0' });
    expect(isAllowedHost(all, '127.0.0.1:3000')).toBe(true);
    expect(isAllowedHost(all, 'evil.example:3000')).toBe(false);
  });

  it('settings that are not host names are named at start-up', () => {
    expect(() => loadConfig({ TOPICGATE_ALLOWED_HOSTS: '*evil' })).toThrow(/TOPICGATE_ALLOWED_HOSTS="\*evil"/);
    expect(() => loadConfig({ TOPICGATE_ALLOWED_HOSTS: 'a.*.example' })).toThrow(/TOPICGATE_ALLOWED_HOSTS=/);
  });
});

describe('a request naming another host', () => {
  async function app(env: Record<string, string> = {}) {
    const a = Fastify({ logger: false });
    apps.push(a);
    await a.register(errorsPlugin);
    await a.register(allowedHostsPlugin, { config: loadConfig(env) });
    a.get('/v1/topics', async () => ({ topics: [{ name: 'secret-orders' }] }));
    a.get('/healthz', { config: { group: 'health' } }, async () => ({ status: 'ok' }));
    await a.ready();
    return a;
  }

  it('is a 421 TG_MISDIRECTED naming the Host and the setting, with none of the data', async () => {
    const a = await app();
    const r = await a.inject({ url: '/v1/topics', headers: { host: 'evil.example:3000' } });
    expect([r.statusCode, r.json().error.code]).toEqual([421, 'TG_MISDIRECTED']);
    expect(r.json().error.message).toContain('"evil.example:3000"');
    expect(r.json().error.details).toEqual({ host: 'evil.example:3000', setting: 'TOPICGATE_ALLOWED_HOSTS' });
    expect(r.body).not.toContain('secret-orders');
    // Every route, health probes too (they are reached by the listen address or a loopback name).
    expect((await a.inject({ url: '/healthz', headers: { host: 'evil.example' } })).statusCode).toBe(421);
    expect((await a.inject({ url: '/nowhere', headers: { host: 'evil.example' } })).statusCode).toBe(421);
    expect((await a.inject({ url: '/v1/topics', headers: { host: 'localhost:80' } })).statusCode).toBe(200);
  });

  it('on a real socket: an HTTP/1.0 health check without Host (as HAProxy sends) is answered, a foreign Host is not', async () => {
    const a = await app();
    await a.listen({ host: '127.0.0.1', port: 0 });
    const port = (a.server.address() as { port: number }).port;
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (d) => (answer += d.toString()));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    expect(await raw('GET /healthz HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    expect(await raw('GET /v1/topics HTTP/1.0\r\nHost: evil.example\r\n\r\n')).toMatch(/^HTTP\/1\.1 421 /);
  });

  it('is answered once the name is in TOPICGATE_ALLOWED_HOSTS', async () => {
    const a = await app({ TOPICGATE_ALLOWED_HOSTS: 'evil.example' });
    expect((await a.inject({ url: '/v1/topics', headers: { host: 'evil.example:3000' } })).statusCode).toBe(200);
  });
});
