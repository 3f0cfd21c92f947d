/**
 * Trino's spooling protocol against the real local Trino, which spools results to its local S3: every
 * demo topic in every text format is the same bytes over spooled results as over direct ones, and the same values
 * in Arrow; a segment GET that fails once is retried; a client that goes away mid-stream leaves no running query
 * and no segment unacknowledged. Segment failures and acknowledgements are seen through a small proxy in front of
 * Trino (its segment URIs then point at the proxy: the local Trino fetches segments through the coordinator).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tableFromIPC } from 'apache-arrow';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testApp, trinoUrl } from '../helpers.js';

const TOPICS = ['orders', 'clicks', 's3_events', 'orders_expanded'];
const ENCODINGS = { direct: 'none', zstd: 'json+zstd,json+lz4,json', lz4: 'json+lz4', json: 'json' };
type Mode = keyof typeof ENCODINGS;
const LIMITS = { TOPICGATE_MAX_LIMIT: '1000000', TOPICGATE_PREFETCH_ROWS: '0' };

const apps = {} as Record<Mode, FastifyInstance>;
beforeAll(async () => {
  for (const [mode, encoding] of Object.entries(ENCODINGS)) {
    apps[mode as Mode] = await testApp({ ...LIMITS, TOPICGATE_TRINO_ENCODING: encoding });
  }
});
afterAll(() => Promise.all(Object.values(apps).map((a) => a.close())));

/** A whole topic (every event, ties and hard cases included) in one response. */
const whole = (topic: string, format: string) => `/v1/topics/${topic}/events?limit=1000000&format=${format}`;

async function body(mode: Mode, url: string): Promise<Buffer> {
  const res = await apps[mode].inject(url);
  expect(res.statusCode, `${mode} ${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return res.rawPayload;
}

/** The raw protocol: the `data` of every page of a query asked for in json+zstd. */
async function rawSegments(sql: string): Promise<{ encoding: string; segments: { type: string }[] }[]> {
  const headers = { 'X-Trino-User': 'test', 'X-Trino-Query-Data-Encoding': 'json+zstd' };
  let page = (await (await fetch(`${trinoUrl()}/v1/statement`, { method: 'POST', headers, body: sql })).json()) as {
    nextUri?: string;
    data?: { encoding: string; segments: { type: string }[] };
  };
  const data = [];
  for (;;) {
    if (page.data) data.push(page.data);
    if (!page.nextUri) return data;
    page = (await (await fetch(page.nextUri, { headers })).json()) as typeof page;
  }
}

describe('spooled and direct results', () => {
  it('the local Trino spools: a large result comes in spooled segments, a small one inline', async () => {
    const large = await rawSegments('SELECT * FROM vast."demo|kafka_topics".orders');
    const small = await rawSegments('SELECT 1');
    expect(large.every((d) => d.encoding === 'json+zstd')).toBe(true);
    expect(large.flatMap((d) => d.segments).some((s) => s.type === 'spooled')).toBe(true);
    expect(small.flatMap((d) => d.segments).map((s) => s.type)).toEqual(['inline']);
  });

  describe.each(TOPICS)('%s', (topic) => {
    it.each(['json', 'ndjson', 'csv'])(
      '%s: the same bytes over zstd, lz4 and plain json segments as direct',
      async (f) => {
        const direct = await body('direct', whole(topic, f));
        expect(direct.length).toBeGreaterThan(1000);
        for (const mode of ['zstd', 'lz4', 'json'] as const) {
          const spooled = await body(mode, whole(topic, f));
          expect(spooled.equals(direct), `${mode} differs from direct`).toBe(true);
        }
      },
    );

    it('arrow: the same values over spooled results as direct', async () => {
      const values = async (mode: Mode) => {
        const table = tableFromIPC(await body(mode, whole(topic, 'arrow')));
        const fields = table.schema.fields.map((f) => `${f.name}:${String(f.type)}`);
        return { fields, rows: table.toArray().map((r) => JSON.stringify(r, (_k, v) => exact(v))) };
      };
      const direct = await values('direct');
      expect(direct.rows.length).toBeGreaterThan(10);
      expect(await values('zstd')).toEqual(direct);
    });
  });
});

/** BIGINT and bytes compared exactly (JSON.stringify would refuse a bigint and lose a Uint8Array's type). */
function exact(v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof Uint8Array) return `bytes:${Buffer.from(v).toString('hex')}`;
  return v;
}

/** A proxy in front of Trino that can fail segment GETs and records every segment announced and acknowledged. */
class SegmentProxy {
  readonly announced = new Set<string>();
  readonly acked = new Set<string>();
  readonly downloads: string[] = [];
  /** Answer this GET of a segment with a 503 instead of forwarding it. */
  failDownload: (id: string, attempt: number) => boolean = () => false;
  url = '';
  private readonly server = http.createServer((req, res) => this.forward(req, res));

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '/';
    const download = /^\/v1\/spooled\/download\/([^/?]+)/.exec(path)?.[1];
    const ack = /^\/v1\/spooled\/ack\/([^/?]+)/.exec(path)?.[1];
    if (ack) this.acked.add(ack);
    if (download) {
      const attempt = this.downloads.filter((d) => d === download).length;
      this.downloads.push(download);
      if (this.failDownload(download, attempt)) return void res.writeHead(503).end('busy');
    }
    // Host is kept: Trino writes the proxy's address into nextUri and segment URIs.
    const upstream = http.request(new URL(path, trinoUrl()), { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      if (!path.startsWith('/v1/statement')) return void up.pipe(res);
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const text = Buffer.concat(chunks);
        for (const m of text.toString().matchAll(/\/v1\/spooled\/download\/([^"/?]+)"/g)) this.announced.add(m[1]!);
        res.end(text);
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}

describe('through a proxy that sees the segments', () => {
  const proxy = new SegmentProxy();
  let app: FastifyInstance;
  let bulkApp: FastifyInstance;
  const BULK = 'bulk|kafka_topics';
  beforeAll(async () => {
    // The bulk topics (test/global-setup.ts): clicks of 400k events (about 60 MB as NDJSON), so the query still
    // runs when the client stops reading.
    await proxy.start();
    const viaProxy = { ...LIMITS, TOPICGATE_TRINO_URL: proxy.url, TOPICGATE_TRINO_SEGMENT_FETCH: '2' };
    app = await testApp(viaProxy);
    bulkApp = await testApp({ ...viaProxy, TOPICGATE_SCHEMAS: BULK });
  }, 600_000);
  afterAll(async () => {
    await app.close();
    await bulkApp.close();
    await proxy.stop();
  });

  it('a segment GET that fails once is retried: the response is complete and equal to the direct one', async () => {
    proxy.failDownload = (_id, attempt) => attempt === 0 && proxy.downloads.length === 1;
    const res = await app.inject(whole('orders', 'ndjson'));
    expect(res.statusCode).toBe(200);
    const [failed] = proxy.downloads;
    expect(proxy.downloads.filter((d) => d === failed)).toHaveLength(2);
    expect(res.rawPayload.equals(await body('direct', whole('orders', 'ndjson')))).toBe(true);
    expect([...proxy.announced].every((id) => proxy.acked.has(id))).toBe(true);
  });

  it('a client gone mid-stream: the query no longer runs and every segment announced to it is acknowledged', async () => {
    proxy.failDownload = () => false;
    proxy.announced.clear();
    proxy.acked.clear();
    await bulkApp.listen({ host: '127.0.0.1', port: 0 });
    const { port } = bulkApp.server.address() as AddressInfo;
    const { id, req } = await new Promise<{ id: string; req: http.ClientRequest }>((resolve, reject) => {
      const req = http.get(`http://127.0.0.1:${port}/v1/topics/clicks/events?limit=1000000&format=ndjson`, (res) => {
        res.once('data', () => {
          res.pause();
          resolve({ id: res.headers['x-trino-query-id'] as string, req });
        });
      });
      req.on('error', reject);
    });
    // The client has stopped reading; the gateway reads on until the sockets are full, spooled segments included.
    for (let i = 0; i < 100 && proxy.announced.size === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(proxy.announced.size).toBeGreaterThan(0);
    req.destroy();
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const state = async () =>
      (await trino.all(`SELECT state FROM system.runtime.queries WHERE query_id = '${id.replace(/\W/g, '')}'`))
        .rows[0]?.[0];
    // Trino writes spooled segments without waiting for the client: under load the query is cancelled while it
    // runs (FAILED, USER_CANCELED); on an idle machine it may have written every segment before the client left
    // (FINISHED). Either way nothing runs on, and every segment announced is acknowledged (deleted).
    const ended = (x: unknown) => x === 'FAILED' || x === 'FINISHED';
    const t0 = Date.now();
    while (Date.now() - t0 < 10_000 && (!ended(await state()) || unacked()))
      await new Promise((r) => setTimeout(r, 100));
    expect(['FAILED', 'FINISHED']).toContain(await state());
    expect([...proxy.announced].filter((s) => !proxy.acked.has(s))).toEqual([]);
  });
  const unacked = () => [...proxy.announced].some((s) => !proxy.acked.has(s));
});
