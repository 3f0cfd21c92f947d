/**
 * A load whose target the gateway's Trino user may not make, on a Trino set up like production
 * (scripts/secure-trino.ts: file-based access control, where the gateway's user reads the topics only and owns no
 * schema): the run is a 403 TG_FORBIDDEN naming what Trino refused, its position does not move, and the failure is in
 * its runs. The topics' catalog is never a target, and an existing table no load made is refused before any run, so
 * the target is a schema loads.targets allows in a catalog whose schemas the gateway may not create. Registered by
 * trino-secure.test.ts on its secure Trino, so a test run starts one such Trino for both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secureGatewayEnv, type SecureTrinoLayout } from '../scripts/secure-trino.js';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/load-config.js';

/** The cases, on the running secure Trino of `l` with its topics loaded (orders among them). */
export function describeDeniedLoad(l: SecureTrinoLayout): void {
  describe('a load target the gateway may not write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-load-secure-'));
    let app: FastifyInstance;

    beforeAll(async () => {
      const configFile = join(dir, 'config.yaml');
      writeFileSync(configFile, 'loads:\n  targets: [system.landing]\n');
      app = await buildApp(
        loadConfig({
          ...secureGatewayEnv(l),
          TOPICGATE_CONFIG: configFile,
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

    it('in the topics catalog is refused before any run', async () => {
      const put = await app.inject({
        method: 'PUT',
        url: '/v1/loads/topics-catalog',
        payload: { topic: 'orders', target: 'vast.landing.orders' },
      });
      expect([put.statusCode, put.json().error.code], put.body).toEqual([400, 'TG_BAD_TARGET']);
    });

    it('is a 403 naming what Trino refused; the position stays, the run is listed as failed', async () => {
      const put = await app.inject({
        method: 'PUT',
        url: '/v1/loads/denied',
        payload: { topic: 'orders', target: 'system.landing.orders' },
      });
      expect(put.statusCode, put.body).toBe(201);
      const run = await app.inject({ method: 'POST', url: '/v1/loads/denied/runs', payload: {} });
      expect(run.statusCode, run.body).toBe(403);
      expect(run.json().error.code).toBe('TG_FORBIDDEN');
      expect(run.json().error.message).toMatch(/Trino denied the query: Cannot create schema system\.landing/);
      const view = (await app.inject({ url: '/v1/loads/denied' })).json();
      expect(view.position).toBeNull();
      expect(view.runs).toMatchObject([{ outcome: 'failed', rows: null }]);
      expect(view.runs[0].error).toMatch(/^TG_FORBIDDEN: /);
    });
  });
}
