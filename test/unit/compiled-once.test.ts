/**
 * Validators and serializers compiled once per process (src/server/validators.ts): a second app of the process
 * reuses what the first compiled, schemas are told apart by their text, and a schema with an `$id` stays its app's.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { compiledOnce, MAX_COMPILED_SCHEMAS, validators } from '../../src/server/validators.js';

describe('compiledOnce', () => {
  it('compiles each schema text once per key, and copies of a schema share the result', () => {
    const cache = new Map<string, Map<string, { n: number }>>();
    let n = 0;
    const compile = () => ({ n: n++ });
    const a = compiledOnce(cache, 'k', compile);
    const first = a({ schema: { type: 'object', properties: { x: { type: 'integer' } } } });
    // Another app's copy of the same schema, through another compiler of the same key.
    const b = compiledOnce(cache, 'k', compile);
    expect(b({ schema: { type: 'object', properties: { x: { type: 'integer' } } } })).toBe(first);
    expect(b({ schema: { type: 'object', properties: { x: { type: 'string' } } } })).not.toBe(first);
    // Another key (other options or shared schemas) compiles its own.
    expect(compiledOnce(cache, 'other', compile)({ schema: { type: 'object' } }).n).toBe(2);
    expect(n).toBe(3);
  });

  it('starts again past its limit instead of growing', () => {
    const cache = new Map<string, Map<string, number>>();
    let n = 0;
    const c = compiledOnce(cache, 'k', () => n++);
    for (let i = 0; i < MAX_COMPILED_SCHEMAS; i++) c({ schema: { const: i } });
    expect(cache.get('k')!.size).toBe(MAX_COMPILED_SCHEMAS);
    c({ schema: { const: 'one more' } });
    expect(cache.get('k')!.size).toBe(1);
    expect(c({ schema: { const: 0 } })).toBe(MAX_COMPILED_SCHEMAS + 1);
  });
});

describe('two apps of one process', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });

  async function app(schemas: { querystring?: object; body?: object }): Promise<FastifyInstance> {
    const a = Fastify({ ...validators, logger: false });
    a.post(
      '/echo',
      {
        schema: {
          ...schemas,
          response: { 200: { type: 'object', properties: { q: {}, b: {} }, additionalProperties: false } },
        },
      },
      async (req) => ({ q: req.query, b: req.body, hidden: 'not in the response schema' }),
    );
    apps.push(a);
    await a.ready();
    return a;
  }

  const querystring = { type: 'object', properties: { limit: { type: 'integer' } } };
  const body = { type: 'object', properties: { limit: { type: 'integer' } } };

  it('each validates and serializes as if it had compiled alone: text coerced, bodies as sent', async () => {
    for (const a of [await app({ querystring, body }), await app({ querystring, body })]) {
      const ok = await a.inject({ method: 'POST', url: '/echo?limit=5', payload: { limit: 5 } });
      expect([ok.statusCode, ok.json()]).toEqual([200, { q: { limit: 5 }, b: { limit: 5 } }]);
      const text = await a.inject({ method: 'POST', url: '/echo', payload: { limit: '5' } });
      expect([text.statusCode, text.json().message]).toEqual([400, 'body/limit must be integer']);
    }
  });

  it('schemas with one $id and different contents stay apart', async () => {
    const a = await app({ body: { $id: 'Same', type: 'object', properties: { v: { type: 'integer' } } } });
    const b = await app({ body: { $id: 'Same', type: 'object', properties: { v: { type: 'string' } } } });
    expect((await a.inject({ method: 'POST', url: '/echo', payload: { v: 1 } })).statusCode).toBe(200);
    expect((await a.inject({ method: 'POST', url: '/echo', payload: { v: 'x' } })).statusCode).toBe(400);
    expect((await b.inject({ method: 'POST', url: '/echo', payload: { v: 'x' } })).statusCode).toBe(200);
    expect((await b.inject({ method: 'POST', url: '/echo', payload: { v: 1 } })).statusCode).toBe(400);
  });
});
