/**
 * A client that reads a compressed response slowly (test/integration/compression-backpressure.test.ts): in short
 * bursts, pausing after each until the server's side of the connection has stopped writing (its socket's buffer
 * full: the server is waiting on this client, or is not, which the caller asserts), decoding what it reads (Node's
 * zlib for gzip and br, the zstd CLI for zstd, which Node 20's zlib lacks) and counting NDJSON lines, while this
 * process's RSS is sampled. The decoder's own backpressure pauses the response too, so the client never buffers.
 */
import { spawn } from 'node:child_process';
import type http from 'node:http';
import type net from 'node:net';
import type { Readable, Writable } from 'node:stream';
import zlib from 'node:zlib';

export interface SlowRead {
  rows: number;
  decodedBytes: number;
  /** Pauses made, and those in which the server's socket became full (the server waited on the client). */
  pauses: number;
  serverWaited: number;
  /** This process's RSS every 50 ms, with the rows read by then. */
  samples: { rows: number; rss: number }[];
}

interface Decoder {
  input: Writable;
  output: Readable;
  close(): void;
}

function decoderOf(coding: string): Decoder {
  if (coding === 'zstd') {
    const child = spawn('zstd', ['-d', '-c', '-q'], { stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdin.on('error', () => {}); // the child killed at the end
    return { input: child.stdin, output: child.stdout, close: () => child.kill() };
  }
  const z = coding === 'br' ? zlib.createBrotliDecompress() : zlib.createGunzip();
  z.on('error', () => {}); // a stream cut at the end
  return { input: z, output: z, close: () => z.destroy() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads `res` (in `coding`) as above until `o.rows` lines are decoded; `server` is the server's socket. */
export async function readSlowly(
  res: http.IncomingMessage,
  server: net.Socket,
  coding: string,
  o: { rows: number; burstMs: number; holdMs: number; waitMaxMs: number },
): Promise<SlowRead> {
  const d = decoderOf(coding);
  const out: SlowRead = { rows: 0, decodedBytes: 0, pauses: 0, serverWaited: 0, samples: [] };
  let held = true;
  let decoderFull = false;
  let ended = false;
  const flow = () => (held || decoderFull ? res.pause() : res.resume());
  res.on('data', (chunk: Buffer) => {
    if (!d.input.write(chunk)) {
      decoderFull = true;
      flow();
    }
  });
  res.once('end', () => (ended = true));
  res.once('error', () => (ended = true));
  d.input.on('drain', () => {
    decoderFull = false;
    flow();
  });
  d.output.on('data', (chunk: Buffer) => {
    out.decodedBytes += chunk.length;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) out.rows++;
  });
  flow();
  const sampler = setInterval(() => out.samples.push({ rows: out.rows, rss: process.memoryUsage.rss() }), 50);
  try {
    while (out.rows < o.rows && !ended) {
      held = false;
      flow();
      await sleep(o.burstMs);
      held = true;
      flow();
      out.pauses++;
      for (let waited = 0; !server.writableNeedDrain && waited < o.waitMaxMs; waited += 20) await sleep(20);
      if (server.writableNeedDrain) out.serverWaited++;
      await sleep(o.holdMs);
    }
  } finally {
    clearInterval(sampler);
    d.close();
  }
  return out;
}
