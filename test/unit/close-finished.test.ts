/**
 * Closing ends a kept-alive connection once its response is done (src/server/close-finished.ts): a response still
 * streaming when `app.close()` starts finishes whole, and its connection ends then, not at the keep-alive timeout
 * (ten minutes here, so a close that waited for it would lose the race below by far); a graceful shutdown
 * (src/server.ts) whose responses finish is then drained, not cut at the end of its grace period.
 */
import http from 'node:http';
import { PassThrough } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { closeFinishedConnections } from '../../src/server/close-finished.js';
import { shutdown } from '../../src/server.js';

const KEEP_ALIVE_MS = 600_000;

async function closeWhileStreaming(close: (app: FastifyInstance) => Promise<unknown>): Promise<unknown> {
  const app = Fastify({ keepAliveTimeout: KEEP_ALIVE_MS });
  closeFinishedConnections(app);
  const body = new PassThrough();
  app.get('/stream', async (_request, reply) => reply.type('text/plain').send(body));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const agent = new http.Agent({ keepAlive: true });
  try {
    body.write('first,');
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`http://127.0.0.1:${port}/stream`, { agent }, resolve).once('error', reject),
    );
    expect(res.headers.connection).toBe('keep-alive');
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((resolve) => res.once('end', resolve));
    const socketClosed = new Promise((resolve) => res.socket.once('close', resolve));
    const closing = close(app);
    body.end('last');
    await ended;
    expect(Buffer.concat(chunks).toString()).toBe('first,last');
    let timer: NodeJS.Timeout | undefined;
    const held = new Promise((resolve) => (timer = setTimeout(() => resolve('held'), 10_000)));
    const outcome = await Promise.race([closing, held]);
    clearTimeout(timer);
    // Held: the connection is still open (the agent's sockets are destroyed below, which lets the close end).
    if (outcome !== 'held') await socketClosed;
    return outcome;
  } finally {
    agent.destroy();
    await app.close();
  }
}

describe('closing with a response still streaming', () => {
  it('lets the response finish whole, then ends its connection and closes', async () => {
    expect(await closeWhileStreaming((app) => app.close().then(() => 'closed'))).toBe('closed');
  });

  it('a graceful shutdown whose responses finish is drained then, not cut at the end of its grace', async () => {
    expect(await closeWhileStreaming((app) => shutdown(app, KEEP_ALIVE_MS))).toBe('drained');
  });
});
