/**
 * A fake Trino speaking the client protocol over HTTP or HTTPS (POST /v1/statement, GET nextUri pages, DELETE
 * nextUri or /v1/query/{id}, GET /v1/info), so the protocol paths a real Trino rarely takes on demand (HTTP 503,
 * a reset connection, an error on a later page, a stall) are exercised exactly. Every request is logged.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export const QID = '20261130_080000_00001_fake1';

export type Reply =
  | {
      status?: number;
      /** A string or a Buffer is sent as is, anything else as JSON. */
      body?: string | Buffer | object;
      headers?: Record<string, string>;
      /** Answer only after this long. */
      delayMs?: number;
      /** Send the body gzip-compressed (with Content-Encoding: gzip). */
      gzip?: boolean;
    }
  /** Never answered; closed by the client (abort, timeout) or by stop(). */
  | 'stall'
  /** The connection is closed before any answer. */
  | 'reset'
  /** Headers and half the body are sent, then the connection is closed. */
  | { truncate: object };

export interface Logged {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When the request arrived (performance.now()). */
  at: number;
}

/** The error a promise rejects with; fails when it resolves. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

export class FakeTrinoHttp {
  readonly log: Logged[] = [];
  /** Every answer sent (not stalled, reset or cut), in order: `METHOD path` and when it was sent. */
  readonly answered: { request: string; at: number }[] = [];
  base = '';
  onPost: (body: string, headers: http.IncomingHttpHeaders) => Reply = () => ({
    body: { id: QID, stats: { state: 'FINISHED' } },
  });
  /** Answers GET of page `n`; `attempt` counts earlier GETs of the same page. */
  onGet: (n: number, attempt: number) => Reply = () => ({ status: 404 });
  /** Answers any other request (GET /v1/info, DELETE): 204 for DELETE, 404 otherwise, unless set. */
  onOther?: (method: string, path: string) => Reply;
  private readonly server: http.Server;

  constructor(tls?: { key: string; cert: string }) {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => this.handle(req, res);
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const scheme = this.server instanceof https.Server ? 'https' : 'http';
    this.base = `${scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
  uri(n: number): string {
    return `${this.base}/v1/statement/executing/${QID}/y${n}/${n}`;
  }
  path(n: number): string {
    return new URL(this.uri(n)).pathname;
  }
  /** A page of the protocol: `next` is the number of the page after it, or null for the last. */
  page(next: number | null, extra: object = {}): object {
    return {
      id: QID,
      infoUri: `${this.base}/ui/query.html?${QID}`,
      ...(next === null ? {} : { nextUri: this.uri(next) }),
      stats: { state: 'RUNNING' },
      ...extra,
    };
  }
  /** Waits until `cond` holds; fails naming every request seen so far. */
  async until(cond: () => boolean, ms = 3000): Promise<void> {
    const t0 = Date.now();
    while (!cond()) {
      if (Date.now() - t0 > ms)
        throw new Error(`condition not met within ${ms} ms; requests: ${this.requests().join(', ')}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  requests(method?: string): string[] {
    return this.log.filter((l) => !method || l.method === method).map((l) => `${l.method} ${l.path}`);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '';
      const attempt = this.log.filter((l) => l.method === req.method && l.path === path).length;
      this.log.push({ method: req.method ?? '', path, headers: req.headers, body, at: performance.now() });
      let reply: Reply;
      if (req.method === 'POST' && path === '/v1/statement') reply = this.onPost(body, req.headers);
      else if (req.method === 'GET' && path.startsWith('/v1/statement/executing/'))
        reply = this.onGet(Number(path.split('/').pop()), attempt);
      else if (this.onOther) reply = this.onOther(req.method ?? '', path);
      else if (req.method === 'DELETE') reply = { status: 204 };
      else reply = { status: 404 };
      this.answer(req, res, reply);
    });
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply): void {
    if (reply === 'stall') return;
    if (reply === 'reset') return void req.socket.destroy();
    if ('truncate' in reply) {
      const text = JSON.stringify(reply.truncate);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.write(text.slice(0, text.length >> 1));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    const send = () => {
      const { body } = reply;
      const bytes = Buffer.isBuffer(body)
        ? body
        : Buffer.from(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
      const payload = reply.gzip ? zlib.gzipSync(bytes) : bytes;
      res.writeHead(reply.status ?? 200, {
        'content-type': 'application/json',
        ...(reply.gzip ? { 'content-encoding': 'gzip' } : {}),
        ...reply.headers,
      });
      res.end(payload);
      this.answered.push({ request: `${req.method} ${req.url}`, at: performance.now() });
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  }
}
