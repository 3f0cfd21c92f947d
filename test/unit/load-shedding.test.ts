/**
 * Load shedding on event-loop delay (@fastify/under-pressure) sheds only past TOPICGATE_MAX_EVENT_LOOP_DELAY_MS.
 * Its reading is the mean delay of each sample interval; an interval in which the loop was held from just after
 * one reading to past the next has no sample at all, and reads as an infinite delay: the loop was late by one
 * interval, not by the limit. Here the loop is held for three intervals right after a reading, again and again,
 * against a limit of a minute: no request may be shed.
 */
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import accessPlugin from '../../src/server/plugins/access-plugin.js';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';

const SAMPLE_MS = 20;
const app = Fastify({ logger: false });
afterAll(() => app.close());

function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('load shedding on event-loop delay', () => {
  it('a loop held for a few sample intervals, far below the limit, sheds nothing', async () => {
    const config = loadConfig({
      TOPICGATE_TRINO_URL: 'http://127.0.0.1:1',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '60000',
    });
    await app.register(errorsPlugin);
    await app.register(accessPlugin, { config, pressure: { sampleInterval: SAMPLE_MS } });
    app.get('/v1/whoami', async () => ({ ok: true }));
    await app.ready();
    await new Promise((r) => setTimeout(r, 3 * SAMPLE_MS));
    const codes: number[] = [];
    for (let i = 0; i < 40; i++) {
      // A timer of the same interval runs right after the reading's, in the same turn: it holds the loop there.
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          busy(3 * SAMPLE_MS);
          resolve();
        }, SAMPLE_MS),
      );
      codes.push((await app.inject('/v1/whoami')).statusCode);
    }
    expect(codes.filter((c) => c !== 200)).toEqual([]);
  });
});
