/**
 * An HTTP proxy in front of the real Trino for tests that must catch a small query while it runs: queries whose
 * submission matches `hold` are dispatched in Trino as usual, but the proxy never answers their result-page GETs,
 * so they stay unfinished in Trino (their results are never taken) until someone cancels them. Cancels (DELETE)
 * and every other query pass through. Trino builds its nextUri from the Host header, so the pages come back here.
 */
import http from 'node:http';

export interface Submitted {
  id: string;
  sql: string;
  tags: string;
}

export class StallProxy {
  readonly submitted: Submitted[] = [];
  private readonly held = new Set<string>();
  private readonly waiting = new Set<http.ServerResponse>();
  private server: http.Server | undefined;
  /** Which submissions to stall; none by default. */
  hold: (q: Submitted) => boolean = () => false;
  /** How long the answer to each query's submission is held back, as a busy Trino answers late; none by default. */
  delayMs = 0;
  /** The SQL sent to Trino instead of a submission's own (a statement that fails there, say); none by default. */
  replace: (sql: string) => string | undefined = () => undefined;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.waiting) res.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** The first submission matching `f`, once the proxy has seen it (waits up to `ms`). */
  async seen(f: (q: Submitted) => boolean, ms = 15_000): Promise<Submitted> {
    const t0 = Date.now();
    for (;;) {
      const q = this.submitted.find(f);
      if (q) return q;
      if (Date.now() - t0 > ms) throw new Error('the proxy saw no such query');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = req.url ?? '/';
    const instead = req.method === 'POST' && url === '/v1/statement' && this.replace(Buffer.concat(chunks).toString());
    const body = instead ? Buffer.from(instead) : Buffer.concat(chunks);
    const headers = instead ? { ...req.headers, 'content-length': String(body.length) } : req.headers;
    // Queued pages pass (Trino dispatches a query only once its client polls the queued URI); executing pages,
    // which carry the results, are held.
    const results = url.startsWith('/v1/statement/executing/');
    if (req.method === 'GET' && results && [...this.held].some((id) => url.includes(`/${id}/`))) {
      this.waiting.add(res); // never answered: the query's results are not taken
      res.on('close', () => this.waiting.delete(res));
      return;
    }
    const target = new URL(this.target);
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: url, headers },
      (upRes) => {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          const answer = Buffer.concat(parts);
          const submission = req.method === 'POST' && url.startsWith('/v1/statement');
          if (submission) this.record(body, req, answer);
          const send = () => {
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            res.end(answer);
          };
          if (submission && this.delayMs > 0) setTimeout(send, this.delayMs);
          else send();
        });
      },
    );
    up.on('error', () => res.destroy());
    up.end(body);
  }

  private record(body: Buffer, req: http.IncomingMessage, answer: Buffer): void {
    let id: string | undefined;
    try {
      id = (JSON.parse(answer.toString()) as { id?: string }).id;
    } catch {
      return;
    }
    if (!id) return;
    const q = { id, sql: body.toString(), tags: String(req.headers['x-trino-client-tags'] ?? '') };
    if (this.hold(q)) this.held.add(id);
    this.submitted.push(q);
  }
}
