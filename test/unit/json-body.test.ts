/**
 * The JSON body parser: a body nesting deeper than `limits.maxDepth` is a 422 naming the cap before it is parsed or
 * validated; brackets inside strings do not count; any other body is answered exactly as fastify's own parser does.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import jsonBodyPlugin from '../../src/server/plugins/json-body.js';

/** An app echoing the parsed body, with the one error body; `maxDepth` undefined: the default (64). */
async function echoApp(withParser: boolean, maxDepth?: number): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(errorsPlugin);
  if (withParser) await app.register(jsonBodyPlugin, { maxDepth });
  app.post('/echo', async (request) => ({ body: request.body }));
  await app.ready();
  return app;
}

const nested = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

let capped: FastifyInstance;
let byDefault: FastifyInstance;
let plain: FastifyInstance;
beforeAll(async () => {
  [capped, byDefault, plain] = await Promise.all([echoApp(true, 5), echoApp(true), echoApp(false)]);
});
afterAll(async () => {
  await Promise.all([capped, byDefault, plain].map((a) => a.close()));
});

const send = (app: FastifyInstance, payload: string, contentType = 'application/json') =>
  app.inject({ method: 'POST', url: '/echo', payload, headers: { 'content-type': contentType } });

describe('the nesting depth of a JSON body', () => {
  it.each([
    ['arrays', nested(5), nested(6)],
    ['objects', objects(5), objects(6)],
    ['mixed', '{"a":[{"b":[{}]}]}', '{"a":[{"b":[{"c":[]}]}]}'],
  ])('%s: the cap passes, one past it is a 422 naming limits.maxDepth', async (_name, at, past) => {
    const ok = await send(capped, at);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().body).toEqual(JSON.parse(at));
    const res = await send(capped, past);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toEqual({
      code: 'TG_TOO_EXPENSIVE',
      status: 422,
      message:
        'JSON body nesting depth: 6, above the cap limits.maxDepth = 5; narrow the request (or raise the cap in the config file)',
      details: { limit: 'maxDepth', max: 5, found: 6, parameter: 'body' },
    });
  });

  it('the default is 64', async () => {
    expect((await send(byDefault, nested(64))).statusCode).toBe(200);
    expect((await send(byDefault, nested(65))).json().error.details).toEqual({
      limit: 'maxDepth',
      max: 64,
      found: 65,
      parameter: 'body',
    });
  });

  it.each([
    ['brackets in strings', '{"a":"[[[[[[[[{{{{{{{{","b":[["]]]]}}}}"]]}'],
    ['escaped quotes before brackets', '{"a":"\\"[[[[[[[[[[","b":"\\\\"}'],
    ['an escaped backslash ending a string', '["\\\\",[[["[[[[[[["]]]]'],
    ['unicode escapes', '{"\\u005b\\u007b":"\\u0022[[[[[[[["}'],
  ])('%s do not count', async (_name, text) => {
    const res = await send(capped, text);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().body).toEqual(JSON.parse(text));
  });

  it('is counted where brackets stand outside strings, however deep, in time', async () => {
    for (const depth of [100, 1000, 10_000, 100_000]) {
      const started = performance.now();
      const res = await send(byDefault, `{"where":${'{"not":'.repeat(depth)}{}${'}'.repeat(depth)}}`);
      // Linear in the body: a count that rescanned would take minutes at 100,000 levels. The margin is for a busy machine.
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(res.json().error.details).toEqual({ limit: 'maxDepth', max: 64, found: depth + 2, parameter: 'body' });
    }
  });
});

describe('any other body is answered as fastify parses it', () => {
  it.each([
    ['invalid JSON', 'not json'],
    ['truncated JSON', '{"a":[1,2'],
    ['unbalanced brackets within the cap', ']]]['],
    ['an empty body', ''],
    ['prototype poisoning', '{"__proto__":{"x":1}}'],
    ['constructor poisoning', '{"constructor":{"prototype":{"x":1}}}'],
    ['a scalar', '42'],
    ['a string with brackets', '"[[[[[[[["'],
  ])('%s', async (_name, text) => {
    const [mine, theirs] = await Promise.all([send(capped, text), send(plain, text)]);
    expect({ status: mine.statusCode, body: mine.json() }).toEqual({ status: theirs.statusCode, body: theirs.json() });
  });

  it('a JSON media type with parameters goes through the cap too', async () => {
    const res = await send(capped, nested(6), 'application/json; charset=utf-8');
    expect(res.json().error.code).toBe('TG_TOO_EXPENSIVE');
  });
});
