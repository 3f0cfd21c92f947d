/**
 * The ceiling client's HTTP: one exchange read whole into a Buffer over a keep-alive connection, redirects
 * followed (method and body kept, as a 307/308 asks), and what Trino's client protocol says to retry retried with
 * a short backoff: a 503 on any request (the server is busy: try again in 50-100 ms), and on a GET (nextUri,
 * segments, acknowledgements: Trino answers a repeated GET with the same page) also 429/502/504 and a reset
 * connection. A POST is never retried otherwise: its lost answer may still have registered the query.
 */
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const AGENTS = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};
const MAX_REDIRECTS = 3;
const MAX_TRIES = 8;
const GET_RETRIED = new Set([429, 502, 503, 504]);

function once(method: string, url: URL, headers: Record<string, string>, body?: string): Promise<Reply> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  const agent = AGENTS[url.protocol as keyof typeof AGENTS];
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const resetConnection = (err: unknown) =>
  ['ECONNRESET', 'EPIPE', 'ECONNREFUSED'].includes((err as NodeJS.ErrnoException).code ?? '');

/** One request, redirected and retried as the protocol allows; a final non-2xx status throws. */
export async function exchange(
  method: 'GET' | 'POST',
  url: URL,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  let hops = 0;
  for (let attempt = 1; ; attempt++) {
    let reply: Reply;
    try {
      reply = await once(method, url, headers, body);
    } catch (err) {
      if (method === 'GET' && resetConnection(err) && attempt < MAX_TRIES) {
        await sleep(backoffMs(attempt));
        continue;
      }
      throw err;
    }
    const location = reply.headers.location;
    if (reply.status >= 300 && reply.status < 400 && location && hops++ < MAX_REDIRECTS) {
      url = new URL(location, url);
      attempt--;
      continue;
    }
    const retried = reply.status === 503 || (method === 'GET' && GET_RETRIED.has(reply.status));
    if (retried && attempt < MAX_TRIES) {
      await sleep(backoffMs(attempt));
      continue;
    }
    if (reply.status < 200 || reply.status >= 300)
      throw new Error(`${method} ${url.pathname}: HTTP ${reply.status} ${reply.body.toString('utf8', 0, 300)}`);
    return reply;
  }
}

/** 50-100 ms, then doubling, at most 1-2 s. */
const backoffMs = (attempt: number) => Math.min(1000, 50 * 2 ** (attempt - 1)) * (1 + Math.random());
