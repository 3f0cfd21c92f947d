/** /readyz names the failing dependency (Trino, the cursor store) and recovers by itself. */
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type Services } from '../../src/server/app.js';
import { TopicCatalog } from '../../src/read/topic-catalog.js';
import { loadConfig } from '../../src/server/load-config.js';
import { CursorService } from '../../src/cursors/cursor-service.js';
import type { CursorStore } from '../../src/cursors/cursor-store.js';
import { openStore } from '../../src/cursors/open-store.js';
import { guardStore } from '../../src/state/store-failures.js';
import { Keyring } from '../../src/core/signed-token.js';
import { TrinoQueryError, TrinoRefusedError, TrinoUnavailableError } from '../../src/trino/trino-errors.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function setup(env: Record<string, string> = {}) {
  const config = loadConfig({ TOPICGATE_STATE_URL: 'sqlite::memory:', ...env });
  const trino = new FakeTrinoPort();
  const real = await openStore(config.stateUrl);
  let storeDown = false;
  const store = guardStore(
    new Proxy(real, {
      get: (t, k, r) =>
        k === 'ping' && storeDown
          ? () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
          : Reflect.get(t, k, r),
    }) as CursorStore,
  );
  const keyring = Keyring.fromSecrets(config.cursorSecret);
  const services = { config, trino, catalog: new TopicCatalog(trino, config), store, keyring } as unknown as Services;
  services.cursors = new CursorService(services, store, keyring);
  const app = await buildApp(config, { services, logger: false });
  closers.push(
    () => app.close(),
    () => real.close(),
  );
  return { app, trino, setStoreDown: (down: boolean) => (storeDown = down) };
}

describe('/readyz', () => {
  it('ready: both dependencies answer', async () => {
    const { app } = await setup();
    const r = await app.inject('/readyz');
    expect([r.statusCode, r.json()]).toEqual([200, { status: 'ready', trino: '476', state: 'ok' }]);
  });

  it.each<[string, (t: FakeTrinoPort) => void, boolean, number, string, object, string | undefined]>([
    [
      'Trino unreachable',
      (t) => (t.infoAnswer = new TrinoUnavailableError('Trino is not reachable (ECONNREFUSED)')),
      false,
      503,
      'TG_TRINO_UNAVAILABLE',
      { trino: 'unreachable', state: 'ok' },
      '5',
    ],
    [
      'Trino starting',
      (t) => (t.infoAnswer = { starting: true }),
      false,
      503,
      'TG_TRINO_UNAVAILABLE',
      { trino: 'starting', state: 'ok' },
      '5',
    ],
    [
      "Trino refusing the gateway's credentials",
      (t) => (t.infoAnswer = new TrinoRefusedError(401)),
      false,
      502,
      'TG_TRINO_AUTH',
      { trino: 'refused', state: 'ok' },
      undefined,
    ],
    [
      'the cursor store unreachable',
      () => {},
      true,
      503,
      'TG_STATE_UNAVAILABLE',
      { trino: 'ok', state: 'unreachable' },
      '5',
    ],
    [
      'both',
      (t) => (t.infoAnswer = new TrinoUnavailableError('down')),
      true,
      503,
      'TG_TRINO_UNAVAILABLE',
      { trino: 'unreachable', state: 'unreachable' },
      '5',
    ],
  ])(
    '%s: names the failing dependency, then ready again by itself',
    async (_l, breakTrino, storeDown, status, code, details, retry) => {
      const { app, trino, setStoreDown } = await setup();
      breakTrino(trino);
      setStoreDown(storeDown);
      const r = await app.inject('/readyz');
      expect([r.statusCode, r.json().error.code, r.json().error.details, r.headers['retry-after']]).toEqual([
        status,
        code,
        details,
        retry,
      ]);
      trino.infoAnswer = { starting: false, nodeVersion: { version: '476' } };
      setStoreDown(false);
      expect((await app.inject('/readyz')).statusCode).toBe(200);
    },
  );
});

describe('/readyz with TOPICGATE_TRINO_MIN_WORKERS', () => {
  const NODES = /system\.runtime\.nodes/;
  const count = (n: number) => ({ columns: [{ name: '_col0', type: 'bigint' }], batches: [[[n]]] });

  it('counts active workers: below the minimum is 503 without workers, at it ready', async () => {
    const { app, trino } = await setup({ TOPICGATE_TRINO_MIN_WORKERS: '2' });
    trino.answer(NODES, count(1));
    const below = await app.inject('/readyz');
    expect([below.statusCode, below.headers['retry-after'], below.json().error.code]).toEqual([
      503,
      '5',
      'TG_TRINO_UNAVAILABLE',
    ]);
    expect(below.json().error.details).toEqual({ trino: 'without workers', state: 'ok' });
    trino.answer(NODES, count(2));
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });

  it('a count Trino cannot schedule for want of workers is none', async () => {
    const { app, trino } = await setup({ TOPICGATE_TRINO_MIN_WORKERS: '1' });
    const none = { message: 'no workers', errorCode: 1, errorName: 'GENERIC_INSUFFICIENT_RESOURCES' };
    trino.answer(NODES, new TrinoQueryError({ ...none, errorType: 'INSUFFICIENT_RESOURCES' }, 'q1'));
    expect((await app.inject('/readyz')).json().error.details.trino).toBe('without workers');
  });

  it('0 (the default) asks Trino nothing more than /v1/info', async () => {
    const { app, trino } = await setup();
    expect((await app.inject('/readyz')).statusCode).toBe(200);
    expect(trino.queries).toHaveLength(0);
  });
});
