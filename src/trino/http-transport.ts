/**
 * One HTTP exchange with Trino over Node's http/https modules: keep-alive agents, a time limit per request
 * (headers and body), gzip, and failures that say what went wrong, so the protocol layer (http-trino.ts) can
 * decide what to retry. It knows nothing of Trino's pages or credentials.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  timeoutMs: number;
  /**
   * Where a body of known length (Content-Length, not gzip) is read into, instead of being gathered and copied:
   * a buffer of exactly that length (spooled segments: a reused one, zstd.ts).
   */
  into?: (length: number) => Buffer;
}

export interface HttpReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (after gunzip): JSON pages are decoded by the caller, spooled segments stay bytes. */
  body: Buffer;
}

export interface TransportOptions {
  /** PEM CA certificates trusted for https instead of Node's bundled ones. */
  ca?: string | Buffer;
  /** Ask for gzip-compressed responses. */
  gzip: boolean;
}

/** The request did not complete (headers and body) within its time limit. */
export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

// An idle keep-alive socket is closed well before any server or proxy would close it, so a request rarely goes
// out on a socket the server is closing (which would fail a POST that must not be retried).
const IDLE_SOCKET_MS = 4_000;
const GUNZIP_CHUNK = 1 << 20;

export class HttpTransport {
  private readonly agents: { 'http:'?: http.Agent; 'https:'?: https.Agent } = {};

  constructor(private readonly options: TransportOptions) {}

  /** Sends one request and reads the whole answer, whatever its status. */
  send(r: HttpRequest): Promise<HttpReply> {
    return new Promise((resolve, reject) => {
      if (r.signal?.aborted) return reject(r.signal.reason);
      const secure = r.url.protocol === 'https:';
      const headers = { ...r.headers };
      if (this.options.gzip) headers['Accept-Encoding'] = 'gzip';
      if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
      const req = (secure ? https : http).request(r.url, { method: r.method, headers, agent: this.agent(secure) });
      let settled = false;
      const finish = (err: unknown, reply?: HttpReply) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        r.signal?.removeEventListener('abort', onAbort);
        if (reply) return resolve(reply);
        req.destroy();
        reject(err);
      };
      const timer = setTimeout(() => finish(new RequestTimeoutError(r.timeoutMs)), r.timeoutMs);
      const onAbort = () => finish(r.signal?.reason ?? new Error('aborted'));
      r.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', finish);
      req.on('response', (res) => {
        const encoding = res.headers['content-encoding'];
        if (encoding !== undefined && encoding !== 'gzip' && encoding !== 'identity') {
          return finish(new Error(`unexpected Content-Encoding ${JSON.stringify(encoding)}`));
        }
        const chunks: Buffer[] = [];
        const length = Number(res.headers['content-length']);
        let into = r.into && encoding !== 'gzip' && Number.isSafeInteger(length) && length > 0 ? r.into(length) : null;
        let filled = 0;
        res.on('error', finish);
        res.on('data', (c: Buffer) => {
          if (into && filled + c.length <= into.length) {
            filled += c.copy(into, filled);
            return;
          }
          // More than announced: gathered as chunks after all (the caller sees the length it got).
          if (into) chunks.push(into.subarray(0, filled));
          into = null;
          chunks.push(c);
        });
        res.on('end', () => {
          const reply = (body: Buffer) => ({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
          });
          const raw = into ? into.subarray(0, filled) : Buffer.concat(chunks);
          if (encoding !== 'gzip') return finish(undefined, reply(raw));
          // One inflate of the whole page off the main thread: a streamed gunzip costs about twice the CPU.
          zlib.gunzip(raw, { chunkSize: GUNZIP_CHUNK }, (err, body) => finish(err, err ? undefined : reply(body)));
        });
      });
      req.end(r.body);
    });
  }

  private agent(secure: boolean): http.Agent {
    const common = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    if (secure) return (this.agents['https:'] ??= new https.Agent({ ...common, ca: this.options.ca }));
    return (this.agents['http:'] ??= new http.Agent(common));
  }
}
