/**
 * A proxy before the cluster's coordinator that keeps the reads of the worker-loss test in flight on the workers:
 * while closed, the result pages of queries submitted by the held Trino users are not fetched (the requests wait
 * here), so the workers' tasks stay blocked on full output buffers (4MB) instead of finishing into the buffers of
 * the coordinator, the gateway and the sockets, which hold a whole read of the clicks. Opened, every waiting
 * request goes on, and the reads resume where they were. Everything else passes at once. Trino builds its nextUri
 * from the Host header, so the pages come back here.
 */
import http from 'node:http';

export class ResultGate {
  private server: http.Server | undefined;
  private readonly heldIds = new Set<string>();
  private waiting: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly target: string,
    private readonly users: ReadonlySet<string>,
  ) {}

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** From now on, the result pages of the held users' queries wait. */
  close(): void {
    this.closed = true;
  }

  /** Lets every waiting request go on, and any later one pass. */
  open(): void {
    this.closed = false;
    for (const go of this.waiting.splice(0)) go();
  }

  async stop(): Promise<void> {
    this.open();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = req.url ?? '/';
    // Queued pages pass (Trino dispatches a query only once its client polls the queued URI); executing pages,
    // which carry the results, wait.
    const results = req.method === 'GET' && url.startsWith('/v1/statement/executing/');
    const go = () => this.pass(req, res, body);
    if (this.closed && results && [...this.heldIds].some((id) => url.includes(`/${id}/`))) this.waiting.push(go);
    else go();
  }

  private pass(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    const target = new URL(this.target);
    const url = req.url ?? '/';
    const submission = req.method === 'POST' && url.startsWith('/v1/statement');
    const user = String(req.headers['x-trino-user'] ?? '');
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: url, headers: req.headers },
      (upRes) => {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          const answer = Buffer.concat(parts);
          if (submission && this.users.has(user)) this.record(answer);
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          res.end(answer);
        });
        upRes.on('error', () => res.destroy());
      },
    );
    up.on('error', () => res.destroy());
    up.end(body);
  }

  private record(answer: Buffer): void {
    try {
      const id = (JSON.parse(answer.toString()) as { id?: string }).id;
      if (id) this.heldIds.add(id);
    } catch {
      // not a query's first page
    }
  }
}
