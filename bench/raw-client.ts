/**
 * Case (a): the raw `trino-client` npm package, used directly, in a process of its own (forked by bench/race.ts),
 * so its peak RSS is its own. Each IPC message `{sql, user}` runs the query once, iterating the pages and counting
 * rows, and answers `{rows, seconds, firstSeconds}` (or `{error}`;
 * firstSeconds: until the first page with rows).
 */
import { Trino } from 'trino-client';

const server = process.argv[2];
if (!server || !process.send) throw new Error('usage: forked by bench/race.ts with the Trino URL as argument');
const trino = Trino.create({ server, source: 'topicgate-bench' });

async function run(sql: string, user: string): Promise<{ rows: number; seconds: number; firstSeconds: number }> {
  const t0 = performance.now();
  const pages = await trino.query({
    query: sql,
    user,
    // The gateway sends this capability too (Trino then keeps timestamps' precision in their text form).
    extraHeaders: { 'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME' },
  });
  let rows = 0;
  let firstSeconds = -1;
  for await (const page of pages) {
    if (page.error) throw new Error(`${page.error.errorName}: ${page.error.message}`);
    if (firstSeconds < 0 && page.data?.length) firstSeconds = (performance.now() - t0) / 1000;
    rows += page.data?.length ?? 0;
  }
  return { rows, seconds: (performance.now() - t0) / 1000, firstSeconds };
}

process.on('message', (m: { sql: string; user: string }) => {
  run(m.sql, m.user).then(
    (r) => process.send!(r),
    (err: unknown) => process.send!({ error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
