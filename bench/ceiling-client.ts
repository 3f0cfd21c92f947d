/**
 * The ceiling: Trino's client protocol read as fast as a client can and thrown away, in a process of its own
 * (forked by bench/race.ts, so its CPU and peak RSS are its own). It sends the headers the gateway sends (so Trino
 * does the same work), POSTs the SQL, follows each nextUri, and reads of each page only `nextUri`, `error` and the
 * row count (bench/ceiling-page.ts); over spooling it fetches, decompresses and acknowledges each segment and counts
 * its rows from the segment's metadata (bench/ceiling-segments.ts). No row is parsed: whatever a client does with
 * the rows comes on top of this. Arguments: the Trino URL and the encodings to ask for (`none`: the direct
 * protocol). Each IPC message `{sql, user}` runs the query once and answers `{rows, seconds, firstSeconds}` (or
 * `{error}`; firstSeconds: until the first page with rows or segments).
 */
import { exchange } from './ceiling-http.js';
import { readPage } from './ceiling-page.js';
import { SegmentReader } from './ceiling-segments.js';

const [server, encodings] = process.argv.slice(2);
if (!server || !encodings || !process.send)
  throw new Error('usage: forked by bench/race.ts with the Trino URL and the encodings (or none) as arguments');

/** The gateway's Trino headers for a read (its source, tags and default query_max_run_time). */
function statementHeaders(user: string): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Trino-User': user,
    'X-Trino-Source': 'topicgate',
    'X-Trino-Client-Tags': 'topicgate,read',
    // Without it Trino rounds timestamps to milliseconds (and formats them differently).
    'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME',
    'X-Trino-Session': 'query_max_run_time=120s',
  };
  if (encodings !== 'none') headers['X-Trino-Query-Data-Encoding'] = encodings!;
  return headers;
}

async function run(sql: string, user: string): Promise<{ rows: number; seconds: number; firstSeconds: number }> {
  const t0 = performance.now();
  const segments = new SegmentReader(server!);
  let reply = await exchange('POST', new URL('/v1/statement', server), statementHeaders(user), sql);
  let rows = 0;
  let firstSeconds = -1;
  for (;;) {
    const page = readPage(reply.body);
    if (page.error) throw new Error(`${page.error.errorName}: ${page.error.message}`);
    rows += page.rows;
    for (const segment of page.spooled?.segments ?? []) await segments.add(page.spooled!.encoding, segment);
    if (firstSeconds < 0 && (page.rows > 0 || page.spooled?.segments.length))
      firstSeconds = (performance.now() - t0) / 1000;
    if (!page.nextUri) break;
    reply = await exchange('GET', new URL(page.nextUri, server), { 'X-Trino-User': user });
  }
  rows += await segments.done();
  return { rows, seconds: (performance.now() - t0) / 1000, firstSeconds };
}

process.on('message', (m: { sql: string; user: string }) => {
  run(m.sql, m.user).then(
    (r) => process.send!(r),
    (err: unknown) => process.send!({ error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
