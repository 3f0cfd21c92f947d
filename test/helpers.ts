/** Shared helpers for integration tests: an app wired to the real local Trino. */
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/load-config.js';
import { startServer } from '../src/server.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { PROJECT_ROOT, startFlags } from '../scripts/start-command.js';
import { queryStatus } from './trino-queries.js';

export function trinoUrl(): string {
  return inject('trinoUrl');
}

export function testConfig(env: Record<string, string> = {}) {
  // The app runs in the test's own process, whose event loop the test itself blocks at times (large bodies parsed,
  // children waited for): load shedding on event-loop delay would answer for the test, not the gateway.
  return loadConfig({
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...env,
  });
}

export async function testApp(env: Record<string, string> = {}): Promise<FastifyInstance> {
  return buildApp(testConfig(env), { logger: false });
}

/** A query's state and error code in the test Trino (its query tracker): how a cancelled read ended. */
export async function queryState(id: string): Promise<{ state: string; error: string | null }> {
  const { state, error } = await queryStatus(trinoUrl(), id);
  return { state: state as string, error };
}

/** Direct SQL against the demo schema, for computing expected answers independently of the gateway. */
export async function sql(query: string): Promise<unknown[][]> {
  const c = new HttpTrino({ server: trinoUrl(), user: 'test' });
  return (await c.all(query, { catalog: 'vast', schema: 'demo|kafka_topics' })).rows;
}

/**
 * A gateway listening on a free loopback port (for clients in other processes: curl, Python, examples), serving
 * `schema` of the local Trino. Close its app when done.
 */
export async function testGateway(schema: string): Promise<{ app: FastifyInstance; url: string }> {
  return startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_SCHEMAS: schema,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      // The gateway shares the test's event loop, which waits on children.
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
  );
}

/**
 * The server as `npm start` runs it, as a child process: `node <the start script's flags> dist/server.js` in the
 * project's root. The global setup builds dist/ from the sources when stale (scripts/build.mjs --if-stale), so
 * a test starts the artifact users run, without compiling the sources in each process it starts.
 */
export function serverCommand(): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: [...startFlags(), 'dist/server.js'], cwd: PROJECT_ROOT };
}
