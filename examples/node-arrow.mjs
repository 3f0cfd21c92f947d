#!/usr/bin/env node
// Read a topic from topicgate in Node with apache-arrow: each page is an Arrow IPC stream read batch by batch as
// it arrives (fetch's body into RecordBatchReader), following `Link: <...>; rel="next"`.
//
//   node examples/node-arrow.mjs 'http://127.0.0.1:3000/v1/topics/orders/events?since=2026-11-01T00:00:00Z&limit=5000'
//
// Types arrive exact: bigint as BigInt (Int64), timestamps as milliseconds in UTC, key/value as bytes. A cut
// response (the gateway aborts the transfer) makes fetch's body fail ("terminated"): the script exits 1.
// Note: given a WHATWG ReadableStream (`res.body`) directly, apache-arrow 21 takes a failed stream for a finished
// one (and a stream without its end-of-stream marker for a whole one), so a cut page would pass as complete. The
// body is handed over as an async iterable instead, through which the error reaches the reader.
import { RecordBatchReader } from 'apache-arrow';

/** The response body as an async iterable of chunks: a failed transfer throws here. */
async function* chunks(body) {
  for await (const chunk of body) yield chunk;
}

/** The `rel="next"` target of the Link header, if any. */
function nextLink(res, base) {
  const m = /<([^>]*)>\s*;\s*rel="next"/.exec(res.headers.get('link') ?? '');
  return m ? new URL(m[1], base).href : null;
}

async function main(first) {
  const url = new URL(first);
  url.searchParams.set('format', 'arrow');
  const decoder = new TextDecoder();
  const pages = [];
  const sample = [];
  for (let next = url.href; next;) {
    const res = await fetch(next);
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    let rows = 0;
    const reader = await RecordBatchReader.from(chunks(res.body));
    for await (const batch of reader) {
      rows += batch.numRows;
      if (sample.length < 3) {
        for (const row of batch.toArray().slice(0, 3 - sample.length)) {
          sample.push({
            key: row.key == null ? null : decoder.decode(row.key),
            timestamp_broker: new Date(Number(row.timestamp_broker)).toISOString(),
            value_bytes: row.value?.length ?? 0,
          });
        }
      }
    }
    pages.push(rows);
    next = nextLink(res, next);
  }
  const total = pages.reduce((a, b) => a + b, 0);
  console.log(`rows: ${total} in ${pages.length} pages (${pages.join(', ')})`);
  console.table(sample);
}

if (process.argv.length !== 3) {
  console.error('usage: node examples/node-arrow.mjs <topicgate events URL>');
  process.exit(2);
}
main(process.argv[2]).catch((err) => {
  console.error(`failed: ${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ''}`);
  process.exit(1);
});
