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
   * Buffers the body is read into instead of gathered as chunks and copied (not with gzip): one of exactly the
   * announced length, or for a body of unknown length (a chunked direct page) one that grows as it fills. The reply's
   * body is then a view of a pool buffer, which the caller gives back once it has read it.
   */
  pool?: BodyBuffers;
}

/** Where bodies are read into (buffer-pool.ts). */
export interface BodyBuffers {
  /** A buffer of `size` bytes, the caller's until given back. */
  take(size: number): Buffer;
  /** Gives back a buffer from take(); anything else is ignored. */
  give(view: Uint8Array): void;
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
/** Where a pooled body of unknown length starts, before any has been read. */
const MIN_GATHER = 1 << 16;

export class HttpTransport {
  private readonly agents: { 'http:'?: http.Agent; 'https:'?: https.Agent } = {};
  /** The size of the last pooled body of unknown length: the next one starts a quarter larger (pages are alike). */
  private lastUnknownLength = 0;

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
        const body = new BodyReader(
          encoding === 'gzip' ? undefined : r.pool,
          Number(res.headers['content-length']),
          this.lastUnknownLength,
        );
        res.on('error', finish);
        res.on('data', (c: Buffer) => body.add(c));
        res.on('end', () => {
          const reply = (body: Buffer) => ({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
          });
          const raw = body.end();
          if (body.unknownLength) this.lastUnknownLength = raw.length;
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

/**
 * A body as it arrives: into a pool buffer when there is a pool (of the announced length, or grown by doubling into
 * a larger one when the length is unknown), else as chunks joined at the end. A body longer than announced is
 * gathered as chunks after all (the caller sees the length it got).
 */
class BodyReader {
  private chunks: Buffer[] = [];
  private into: Buffer | null = null;
  private filled = 0;
  readonly unknownLength: boolean;

  constructor(
    private readonly pool: BodyBuffers | undefined,
    length: number,
    hint: number,
  ) {
    const known = Number.isSafeInteger(length) && length > 0;
    this.unknownLength = pool !== undefined && !known;
    if (pool) this.into = pool.take(known ? length : Math.max(MIN_GATHER, Math.ceil(hint * 1.25)));
  }

  add(c: Buffer): void {
    const into = this.into;
    if (into && this.filled + c.length > into.length) {
      if (this.unknownLength) {
        this.into = this.pool!.take(Math.max(2 * into.length, this.filled + c.length));
        into.copy(this.into, 0, 0, this.filled);
        this.pool!.give(into);
      } else {
        this.chunks.push(into.subarray(0, this.filled));
        this.into = null;
      }
    }
    if (this.into) this.filled += c.copy(this.into, this.filled);
    else this.chunks.push(c);
  }

  end(): Buffer {
    return this.into ? this.into.subarray(0, this.filled) : Buffer.concat(this.chunks);
  }
}
