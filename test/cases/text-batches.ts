/**
 * Rows as the JSON text Trino sends them in (core/text-rows.ts), built for the differential tests of the text
 * path (row-transcoder.test.ts, arrow-text-rows.test.ts), and the seeded PRNG of their random pages.
 */
import { Buffer } from 'node:buffer';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import type { ResultColumn } from '../../src/core/result-stream.js';
import { TextRows } from '../../src/core/text-rows.js';

/** Rows of value texts as one batch's bytes: `[v,v],[v,v]` (strings as UTF-8, buffers as they are). */
export function rowsText(rows: (string | Buffer)[][]): Buffer {
  const parts: Buffer[] = [];
  rows.forEach((row, r) => {
    parts.push(Buffer.from(r === 0 ? '[' : ',['));
    row.forEach((v, i) => {
      parts.push(Buffer.from(i === 0 ? '' : ','), Buffer.from(v));
    });
    parts.push(Buffer.from(']'));
  });
  return Buffer.concat(parts);
}

/**
 * The rows in batches of `batchRows`, parsed as the reader parses a result with these columns (lossless when one
 * is a bigint); text that is not rows throws `not rows`.
 */
export function textBatches(columns: ResultColumn[], rowTexts: (string | Buffer)[][], batchRows: number): TextRows[] {
  const lossless = columns.some((c) => /\bbigint\b/.test(c.type));
  const parse = lossless ? parseLosslessJson : JSON.parse;
  const bad = () => new Error('not rows');
  const batches: TextRows[] = [];
  for (let i = 0; i < rowTexts.length; i += batchRows) {
    const part = rowTexts.slice(i, i + batchRows);
    batches.push(new TextRows(rowsText(part), part.length, parse, bad));
  }
  return batches;
}

/** A seeded PRNG (mulberry32), so a failing random page can be replayed. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
