/**
 * The client of the sessions bench (bench/sessions.ts), in a process of its own (forked, bench/client-fork.ts) so
 * its CPU is its own: each IPC message `{urls, format, rows}` reads every URL at once, each to its end and checked
 * complete (bench/gateway.ts readGateway), the rows of all together checked to be `rows`, and is answered `{rows,
 * seconds, firstSeconds}` (first: the earliest first byte of any URL) or `{error}`.
 */
import { readGateway, type Format } from './gateway.js';

interface Read {
  urls: string[];
  format: Format;
  rows: number;
}

async function read(m: Read): Promise<{ rows: number; seconds: number; firstSeconds: number }> {
  const t0 = performance.now();
  const each = await Promise.all(m.urls.map((url) => readGateway(url, m.format)));
  const rows = each.reduce((n, r) => n + r.rows, 0);
  if (rows !== m.rows) throw new Error(`the responses hold ${rows} rows, expected ${m.rows}`);
  return {
    rows,
    seconds: (performance.now() - t0) / 1000,
    firstSeconds: Math.min(...each.map((r) => r.firstSeconds)),
  };
}

if (!process.send) throw new Error('usage: forked by bench/sessions.ts');
process.on('message', (m: Read) => {
  read(m).then(
    (r) => process.send!(r),
    (err: unknown) => process.send!({ error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
