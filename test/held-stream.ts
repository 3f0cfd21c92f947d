/**
 * A response held open: its first bytes read, then no more (the client stops reading, so the gateway's query
 * waits on the socket and keeps its slot), until the test reads it to the end, or as far as it goes.
 */
import http from 'node:http';

export interface HeldRead {
  req: http.ClientRequest;
  res: http.IncomingMessage;
  /** The balancer's name for the instance serving it (`x-topicgate-instance`), when read through the balancer. */
  instance: string | undefined;
  first: Buffer;
}

/** GETs `url` uncompressed; resolves once its first body bytes are in, with the response paused. */
export function holdRead(url: string, headers: Record<string, string> = {}): Promise<HeldRead> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { 'accept-encoding': 'identity', ...headers }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url}: status ${res.statusCode}`));
        return;
      }
      res.once('data', (first: Buffer) => {
        res.pause();
        const instance = res.headers['x-topicgate-instance'];
        resolve({ req, res, instance: typeof instance === 'string' ? instance : undefined, first });
      });
    });
    req.on('error', reject); // after the first bytes: the held read's own end (destroyed, or its instance killed)
  });
}

/**
 * Reads a held response on to its end, or to where its transfer stopped: the whole body seen and whether the
 * transfer completed (a chunked body cut without its last chunk is not complete).
 */
export function readOn(held: HeldRead): Promise<{ body: Buffer; complete: boolean }> {
  const chunks = [held.first];
  const { res } = held;
  return new Promise((resolve) => {
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', () => undefined); // `aborted`: reported by `complete` below
    res.once('close', () => resolve({ body: Buffer.concat(chunks), complete: res.complete }));
    res.resume();
  });
}
