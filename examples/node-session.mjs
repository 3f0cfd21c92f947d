#!/usr/bin/env node
// Read a bulk window through a read session in Node: its streams fetched concurrently, each an Arrow IPC stream
// read batch by batch (apache-arrow), joined into one table in stream index order.
//
//   node examples/node-session.mjs 'http://127.0.0.1:3000/v1/topics/orders/sessions' \
//     '{"since": "2026-11-01T00:00:00Z", "until": "2026-11-04T00:00:00Z", "streams": 4}'
//
// Each stream is its own Trino query, servable by any gateway instance; with order `time`, index order is the
// broker-time order of the whole read. Credentials, if the gateway wants them: TOPICGATE_API_KEY (X-API-Key; not
// needed for presigned streams). A cut stream makes its body fail ("terminated"): the script exits 1. The body is
// handed to apache-arrow as an async iterable, not as `res.body` (see node-arrow.mjs: with a ReadableStream,
// apache-arrow 21 takes a failed transfer for a finished one).
import { RecordBatchReader, Table } from 'apache-arrow';

const headers = process.env.TOPICGATE_API_KEY ? { 'x-api-key': process.env.TOPICGATE_API_KEY } : {};

async function* chunks(body) {
  for await (const chunk of body) yield chunk;
}

async function createSession(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return res.json();
}

/** One stream's record batches, read as they arrive. */
async function readStream(url) {
  const res = await fetch(`${url}&format=arrow`, { headers });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const batches = [];
  for await (const batch of await RecordBatchReader.from(chunks(res.body))) batches.push(batch);
  return batches;
}

async function main(sessionsUrl, body) {
  const session = await createSession(sessionsUrl, JSON.parse(body));
  const urls = session.streams.map((s) => new URL(s.url, sessionsUrl).href);
  // Every stream at once; Promise.all keeps their order.
  const parts = await Promise.all(urls.map(readStream));
  const table = new Table(parts.flat());
  const sizes = parts.map((batches) => batches.reduce((n, b) => n + b.numRows, 0));
  console.log(`rows: ${table.numRows} in ${parts.length} streams (${sizes.join(', ')})`);
  const times = table.getChild('timestamp_broker');
  if (times) {
    let ordered = true;
    let last = -Infinity;
    const days = new Map();
    for (const t of times) {
      const ms = Number(t);
      if (ms < last) ordered = false;
      last = ms;
      const day = new Date(ms).toISOString().slice(0, 10);
      days.set(day, (days.get(day) ?? 0) + 1);
    }
    console.log(`broker-time order: ${ordered}`);
    for (const [day, n] of [...days].sort()) console.log(`day ${day}: ${n} events`);
  }
}

if (process.argv.length !== 4) {
  console.error('usage: node examples/node-session.mjs <sessions URL> <JSON body>');
  process.exit(2);
}
main(process.argv[2], process.argv[3]).catch((err) => {
  console.error(`failed: ${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ''}`);
  process.exit(1);
});
