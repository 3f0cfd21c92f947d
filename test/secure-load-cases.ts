/**
 * A load whose target the gateway's Trino user may not write (issue 30), on a Trino set up like production
 * (scripts/secure-trino.ts: file-based access control, where the gateway's user reads the topics only): the run is
 * a 403 TG_FORBIDDEN naming the table Trino refused, its position does not move, and the failure is in its runs.
 * Registered by trino-secure.test.ts on its secure Trino, so a test run starts one such Trino for both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPIC_COLUMNS } from '../scripts/demo-data.js';
import { secureClient, secureGatewayEnv, type SecureTrinoLayout } from '../scripts/secure-trino.js';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/load-config.js';

/** The cases, on the running secure Trino of `l` with its topics loaded (orders among them). */
export function describeDeniedLoad(l: SecureTrinoLayout): void {
  describe('a load target the gateway may not write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-load-secure-'));
    let app: FastifyInstance;

    beforeAll(async () => {
      // The target exists (made by the administrator); the gateway's user may read it but not write it.
      const admin = secureClient(l, 'admin');
      await admin.all('CREATE SCHEMA IF NOT EXISTS vast.landing');
      await admin.all(`CREATE TABLE IF NOT EXISTS vast.landing.orders (${TOPIC_COLUMNS})`);
      app = await buildApp(
        loadConfig({
          ...secureGatewayEnv(l),
          TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
          TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}`,
        }),
        { logger: false },
      );
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('is a 403 naming the table; the position stays, the run is listed as failed', async () => {
      const put = await app.inject({
        method: 'PUT',
        url: '/v1/loads/denied',
        payload: { topic: 'orders', target: 'vast.landing.orders' },
      });
      expect(put.statusCode, put.body).toBe(201);
      const run = await app.inject({ method: 'POST', url: '/v1/loads/denied/runs', payload: {} });
      expect(run.statusCode, run.body).toBe(403);
      expect(run.json().error.code).toBe('TG_FORBIDDEN');
      expect(run.json().error.message).toMatch(
        /Trino denied the query: Cannot delete from table vast\.landing\.orders/,
      );
      const view = (await app.inject({ url: '/v1/loads/denied' })).json();
      expect(view.position).toBeNull();
      expect(view.runs).toMatchObject([{ outcome: 'failed', rows: null }]);
      expect(view.runs[0].error).toMatch(/^TG_FORBIDDEN: /);
    });
  });
}
