/**
 * Ordering, grouping or aggregating by a JSON field needs a bounded window, as filtering by one does, against the
 * real Trino: the refusal names the field; the same request with a window answers.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => {
  await app?.close();
});

describe('the time-bound guardrail on sorting by a JSON field', () => {
  it('order by an arrow path over every event is refused naming it; with since it answers', async () => {
    const refused = await app.inject('/v1/topics/orders/events?order=value->>status.desc&limit=5');
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().error).toMatchObject({
      code: 'TG_TIME_BOUND_REQUIRED',
      details: { fields: ['value->>status'], add: 'since' },
    });
    expect(refused.json().error.message).toMatch(/JSON field value->>status reads it from every event/);
    const bounded = await app.inject(
      '/v1/topics/orders/events?order=value->>status.desc&limit=5&since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z',
    );
    expect(bounded.statusCode, bounded.body).toBe(200);
    expect(bounded.json().rows).toHaveLength(5);
  });
});
