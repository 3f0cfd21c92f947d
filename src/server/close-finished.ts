/**
 * Closing ends each kept-alive connection as soon as its response is done. Node ends the idle connections once,
 * when the server starts closing (`server.close()`); a response still running then leaves its connection open,
 * idle, until the keep-alive timeout (72 s by default) once it finishes, and `app.close()` (so a graceful shutdown,
 * which then waits out its whole grace period and cuts) waits that long for nothing.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Adds the hooks: from `preClose` on, every response that finishes ends its connection once the bytes are out. */
export function closeFinishedConnections(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onResponse', async (request) => {
    if (!closing) return;
    const socket = request.raw.socket as Partial<Socket> & { _httpMessage?: unknown };
    // After the response the socket carries no message: ended gracefully (its buffered bytes flushed first), as
    // Node ends a response sent with `Connection: close`. A pipelined next request is refused with 503 anyway.
    // An injected request's socket is a stand-in without destroySoon: nothing to end.
    setImmediate(() => {
      if (typeof socket.destroySoon === 'function' && !socket.destroyed && !socket._httpMessage) socket.destroySoon();
    });
  });
}
