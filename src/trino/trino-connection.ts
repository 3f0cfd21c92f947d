/**
 * Where and as whom the gateway reaches Trino: the server URL, the connection's user, source and client tags,
 * TLS trust, credentials, and the limits of one request. Settings are checked once, when the port is made.
 * Credentials go over https only, and only to the configured origin.
 */
import { HttpTransport, type HttpReply, type HttpRequest } from './http-transport.js';
import type { ConnectionIdentity } from './statement-headers.js';
import { TrinoCredentials } from './trino-credentials.js';
import { TrinoUnavailableError } from './trino-errors.js';
import { HttpStatusError } from './wire-failures.js';

export interface HttpTrinoOptions {
  /** `http://host:port` or `https://host:port` (a path prefix is kept). */
  server: string;
  /** The user the gateway connects (and authenticates) as; a query runs as it unless it names another. */
  user: string;
  /** `X-Trino-Source` of every query (default `topicgate`). */
  source?: string;
  /** Client tags of every query (a query may add its own). */
  clientTags?: readonly string[];
  /** PEM CA certificates trusted for https instead of Node's bundled ones. */
  ca?: string | Buffer;
  /** Password of `user` (HTTP basic authentication; https only). */
  password?: string;
  /** A file holding a bearer token, read again when it changes (https only). */
  tokenFile?: string;
  /** How often the token file is checked for a change (default 1 s); a 401 checks at once. */
  tokenRecheckMs?: number;
  /** Time limit of one HTTP request, headers and body (default 30 s). */
  requestTimeoutMs?: number;
  /** Retries of one nextUri GET (default 5), waiting base * 2^n ms between them, at most max. */
  retry?: { retries: number; baseMs: number; maxMs: number };
  /** Ask for gzip-compressed pages (default false: on a fast network, compressing costs Trino more CPU than it saves). */
  gzip?: boolean;
  /** Spooling protocol encodings asked for, in order (default none: the direct protocol). */
  encodings?: readonly string[];
  /** Spooled segments fetched at once (default 4). */
  segmentFetch?: number;
}

/** A request as the protocol code writes it: the time limit defaults to the connection's. */
export type Exchange = Omit<HttpRequest, 'timeoutMs'> & { timeoutMs?: number };

export class TrinoConnection {
  readonly identity: ConnectionIdentity;
  readonly retry: { retries: number; baseMs: number; maxMs: number };
  private readonly server: URL;
  private readonly credentials: TrinoCredentials;
  private readonly transport: HttpTransport;
  private readonly requestTimeoutMs: number;

  constructor(options: HttpTrinoOptions) {
    this.server = new URL(options.server);
    if (this.server.protocol !== 'http:' && this.server.protocol !== 'https:') {
      throw new Error(`the Trino URL must be http:// or https://, not ${this.server.protocol}`);
    }
    if (this.server.username || this.server.password) throw new Error('the Trino URL must not carry credentials');
    this.credentials = new TrinoCredentials(options);
    if (this.credentials.present && this.server.protocol !== 'https:') {
      throw new Error('Trino credentials are sent over https only, and the Trino URL is http://');
    }
    this.identity = { user: options.user, source: options.source ?? 'topicgate', clientTags: options.clientTags ?? [] };
    this.transport = new HttpTransport({ ca: options.ca, gzip: options.gzip ?? false });
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.retry = options.retry ?? { retries: 5, baseMs: 50, maxMs: 2_000 };
  }

  /**
   * One request with the connection's credentials; a non-2xx answer rejects with HttpStatusError. A 401 while a
   * token file is in use reads the file again and, if the token changed, tries once more (Trino runs nothing for
   * a request it did not authenticate, so even a POST may be repeated then).
   */
  async exchange(r: Exchange): Promise<HttpReply> {
    for (let renewed = false; ; renewed = true) {
      const authorization = await this.credentials.authorization();
      const headers: Record<string, string> = { 'User-Agent': 'topicgate', ...r.headers };
      if (authorization) headers.Authorization = authorization;
      const reply = await this.transport.send({ ...r, headers, timeoutMs: r.timeoutMs ?? this.requestTimeoutMs });
      if (reply.status >= 200 && reply.status < 300) return reply;
      if (reply.status === 401 && !renewed && (await this.credentials.renewed())) continue;
      throw new HttpStatusError(reply.status);
    }
  }

  /**
   * One request without the connection's credentials, whatever the answer's status (spooled segments: their
   * URIs are signed by Trino, may lead to storage outside it, and may answer with a redirect).
   */
  anonymous(r: Exchange): Promise<HttpReply> {
    const headers: Record<string, string> = { 'User-Agent': 'topicgate', ...r.headers };
    return this.transport.send({ ...r, headers, timeoutMs: r.timeoutMs ?? this.requestTimeoutMs });
  }

  /** A URI Trino handed out, resolved against the server (for requests that carry no credentials). */
  resolve(uri: string): URL {
    return new URL(uri, this.server);
  }

  /** A URL on the server (its path prefix kept). */
  endpoint(path: string): URL {
    return new URL(this.server.href.replace(/\/+$/, '') + path);
  }

  /** A URL Trino handed out; with credentials, only on the configured origin (they must not go elsewhere). */
  follow(uri: string): URL {
    const url = new URL(uri, this.server);
    if (this.credentials.present && url.origin !== this.server.origin) {
      throw new TrinoUnavailableError(
        `Trino sent a nextUri on ${url.origin}, not on ${this.server.origin}; credentials go to the configured ` +
          'origin only (behind a proxy, Trino needs http-server.process-forwarded=true)',
      );
    }
    return url;
  }
}
