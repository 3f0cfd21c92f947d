/**
 * The request log's redaction (src/server/log-redaction.ts): token-bearing query parameters and anything shaped
 * like a token lose their value; everything else of the URL stays as sent, to read the log by.
 */
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { redactUrl, withRedaction } from '../../src/server/log-redaction.js';

const TOKEN = 's1.Ab3dEf01.c2VhbGVkLWJvZHktYnl0ZXM.QUJDREVGR0hJSktMTU5PUF';

describe('redactUrl', () => {
  it.each<[string, string]>([
    ['/v1/topics/orders/events?since=-1h&limit=5', '/v1/topics/orders/events?since=-1h&limit=5'],
    [
      `/v1/topics/o/sessions/abc/streams/0?token=${TOKEN}&format=csv`,
      '/v1/topics/o/sessions/abc/streams/0?token=[redacted]&format=csv',
    ],
    ['/v1/topics/o/events?cursor=p1.x.y.z&limit=2', '/v1/topics/o/events?cursor=[redacted]&limit=2'],
    ['/v1/topics/o/events?follow=true&after=anything', '/v1/topics/o/events?follow=true&after=[redacted]'],
    ['/x?TOKEN=a&Cursor=b&batch=c', '/x?TOKEN=[redacted]&Cursor=[redacted]&batch=[redacted]'],
    ['/x?%74oken=a', '/x?%74oken=[redacted]'],
    // A token under a name of no meaning, in the path, or with its dots encoded, is still a token.
    [`/x?q=${TOKEN}`, '/x?q=[redacted]'],
    [`/x/${TOKEN}/y`, '/x/[redacted]/y'],
    [`/x?q=${TOKEN.replaceAll('.', '%2E')}`, '/x?q=[redacted]'],
    ['/x?%E0%A4%A=1', '/x?%E0%A4%A=1'],
  ])('%s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe('withRedaction', () => {
  it("keeps fastify's request fields, the URL redacted, and censors credential headers in any line", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = Fastify({ logger: withRedaction({ level: 'info', stream }) });
    app.get('/s', async (request) => {
      request.log.info({ headers: request.headers }, 'headers seen');
      return 'ok';
    });
    await app.inject({
      url: `/s?token=${TOKEN}`,
      headers: { authorization: 'Bearer sekrit-jwt', 'x-api-key': 'k-123' },
    });
    await app.close();
    const text = lines.join('');
    expect(text).toContain('"url":"/s?token=[redacted]"');
    expect(text).toContain('"method":"GET"');
    for (const secret of [TOKEN, 'sekrit-jwt', 'k-123']) expect(text).not.toContain(secret);
    expect(withRedaction(false)).toBe(false);
  });
});
