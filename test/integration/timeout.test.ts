/**
 * A query that runs past TOPICGATE_QUERY_TIMEOUT_MS is a 504 TG_TIMEOUT, and the query is no longer running in
 * Trino afterwards (read back from system.runtime.queries). Trino's own query_max_run_time (1 s here) or the
 * gateway's deadline (2 s later, with a DELETE) ends it; both are TG_TIMEOUT.
 *
 * The slow query: all 400k clicks of the bulk schema sorted by payload (limit 400000 forces a full TopN; about
 * 8 s on the local Trino before the first row), so it fails before the first byte of the response.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testApp, trinoUrl } from '../helpers.js';

const BULK = 'bulk|kafka_topics';
let app: FastifyInstance;
let trino: HttpTrino;

beforeAll(async () => {
  trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
  // The bulk topics (test/global-setup.ts): 400k clicks plus their duplicates.
  app = await testApp({ TOPICGATE_QUERY_TIMEOUT_MS: '1000', TOPICGATE_MAX_LIMIT: '1000000', TOPICGATE_SCHEMAS: BULK });
});
afterAll(() => app?.close());

/** State of the gateway query whose SQL holds the varbinary literal X'<hex>' (the lookup's own text does not). */
async function queryByMarker(hex: string): Promise<{ id: string; state: string; error: string | null }[]> {
  const { rows } = await trino.all(
    `SELECT query_id, state, error_code FROM system.runtime.queries WHERE strpos(query, 'X''' || '${hex}') > 0 ORDER BY created`,
  );
  return rows.map(([id, state, error]) => ({
    id: id as string,
    state: state as string,
    error: (error as string | null) ?? null,
  }));
}

describe('query timeout', () => {
  it.each(['json', 'ndjson', 'arrow'])(
    'format=%s: 504 TG_TIMEOUT before the first byte, the query ended in Trino',
    async (format) => {
      const marker = `timeout-${randomUUID()}`;
      const hex = Buffer.from(marker).toString('hex');
      const t0 = Date.now();
      const res = await app.inject(
        `/v1/topics/clicks/events?order=value.desc&limit=400000&format=${format}&key=neq.${marker}`,
      );
      const elapsed = Date.now() - t0;
      expect(res.statusCode, res.body.slice(0, 300)).toBe(504);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json() as { error: { code: string; status: number; message: string; queryId?: string } };
      expect([body.error.code, body.error.status]).toEqual(['TG_TIMEOUT', 504]);
      // Trino's limit fired (its error, named) or the gateway's deadline did (its own words).
      expect([
        'Trino INSUFFICIENT_RESOURCES EXCEEDED_TIME_LIMIT',
        'the query ran past its time limit and was cancelled',
      ]).toContain(body.error.message);
      // Trino's 1 s limit (checked about once a second) or the gateway's deadline at 3 s, well before the ~8 s run.
      expect(elapsed).toBeGreaterThanOrEqual(1_000);
      expect(elapsed).toBeLessThan(6_000);

      // Exactly one query carried the marker, and it is over: failed by Trino's limit or cancelled by the gateway.
      let queries = await queryByMarker(hex);
      for (let i = 0; i < 50 && queries.some((q) => q.state !== 'FAILED'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        queries = await queryByMarker(hex);
      }
      expect(queries).toHaveLength(1);
      expect(queries[0]!.state).toBe('FAILED');
      expect(['EXCEEDED_TIME_LIMIT', 'USER_CANCELED']).toContain(queries[0]!.error);
      // When Trino's error reached the gateway, the body and header name the query.
      if (body.error.queryId !== undefined) {
        expect(body.error.queryId).toBe(queries[0]!.id);
        expect(res.headers['x-trino-query-id']).toBe(queries[0]!.id);
      }
    },
  );
});
