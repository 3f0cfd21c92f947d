/**
 * Batches of rows as text (core/text-rows.ts): split at row boundaries, and cut to a page by the page cutter
 * without being parsed when nothing there needs their values.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { BytesLease, TextRows, type RowBatch } from '../../src/core/text-rows.js';
import type { Encoder } from '../../src/encode/encoder.js';
import { encodeArrow } from '../../src/encode/arrow/arrow-encoder.js';
import { encodeCsv } from '../../src/encode/text/csv-encoder.js';
import { encodeJson } from '../../src/encode/text/json-encoder.js';
import { encodeNdjson } from '../../src/encode/text/ndjson-encoder.js';
import { PageCutter } from '../../src/read/page-cutter.js';
import { segmentBuffers } from '../../src/trino/buffer-pool.js';
import { decodeSegment } from '../../src/trino/segment-decoder.js';

const ROWS = ['[1,"a,b",[2,3]]', '[2,"]\\"",{"x":[1]}]', '[3,null,null]'];
const bad = () => new Error('bad');
const text = (rows: string[]) => new TextRows(Buffer.from(rows.join(',')), rows.length, JSON.parse, bad);

describe('text rows', () => {
  it('split at a row boundary, strings and nesting skipped', () => {
    const [head, tail] = text(ROWS).split(2);
    expect([head.count, tail.count]).toEqual([2, 1]);
    expect(head.values()).toEqual(ROWS.slice(0, 2).map((r) => JSON.parse(r)));
    expect(tail.values()).toEqual([JSON.parse(ROWS[2]!)]);
  });

  it('a split past the last row is text that is not rows', () => {
    expect(() => text(ROWS).split(3)).toThrow('bad');
  });

  it('the page cutter cuts text rows as text, and knows a next page exists', async () => {
    async function* batches(): AsyncGenerator<RowBatch> {
      yield text(ROWS);
      yield text(ROWS);
    }
    const cutter = new PageCutter({ queryId: 'q', columns: [], batches: batches() }, 4, null);
    const got: RowBatch[] = [];
    for await (const b of cutter.view().batches) got.push(b);
    expect(got.every((b) => b instanceof TextRows)).toBe(true);
    expect(got.map((b) => (b as TextRows).values())).toEqual([ROWS.map((r) => JSON.parse(r)), [JSON.parse(ROWS[0]!)]]);
    expect([cutter.rows, cutter.more]).toEqual([4, true]);
  });

  it('the page cutter parses text rows when it anchors the next page on their broker times', async () => {
    async function* batches(): AsyncGenerator<RowBatch> {
      yield text(ROWS);
    }
    const cutter = new PageCutter({ queryId: 'q', columns: [], batches: batches() }, 2, 0);
    const got: RowBatch[] = [];
    for await (const b of cutter.view().batches) got.push(b);
    expect(got).toEqual([ROWS.slice(0, 2).map((r) => JSON.parse(r))]);
    expect(cutter.more).toBe(true);
  });

  it('a leased batch: its buffer goes back once the lender and every batch are done, once; read after, it throws', () => {
    let given = 0;
    const lease = new BytesLease(() => given++);
    const bytes = Buffer.from(ROWS.join(','));
    const [a, b] = [new TextRows(bytes, 3, JSON.parse, bad, lease), new TextRows(bytes, 3, JSON.parse, bad, lease)];
    a.done();
    a.done();
    lease.drop();
    expect(given).toBe(0); // b may still be read
    expect(b.values()).toEqual(ROWS.map((r) => JSON.parse(r)));
    expect(() => a.values()).toThrow(/after it was done/);
    b.done();
    expect(given).toBe(1);
    // A batch that is no view of a pooled buffer stays readable.
    const plain = text(ROWS);
    plain.done();
    expect(plain.count).toBe(3);
    expect(plain.values()).toHaveLength(3);
  });

  it('the parts of a split leased batch hold no lease: the buffer is never given back while they may be read', () => {
    let given = 0;
    const lease = new BytesLease(() => given++);
    const whole = new TextRows(Buffer.from(ROWS.join(',')), 3, JSON.parse, bad, lease);
    const [head, tail] = whole.split(1);
    lease.drop();
    head.done();
    tail.done();
    expect(given).toBe(0);
    expect([...head.values(), ...tail.values()]).toEqual(ROWS.map((r) => JSON.parse(r)));
  });

  it('a spooled segment read as text goes back to the pool once its rows are read and every batch is done', () => {
    const body = '[' + ROWS.join(',') + ']';
    const pooled = segmentBuffers.take(body.length);
    pooled.write(body);
    const before = segmentBuffers.size;
    const batches = decodeSegment('json', pooled, { segmentSize: body.length }, false, 2, true);
    const got = [...batches] as TextRows[];
    expect(got.map((b) => b.count)).toEqual([2, 1]);
    expect(segmentBuffers.size).toBe(before); // read to the end, but its batches are not done
    expect(got.flatMap((b) => b.values())).toEqual(ROWS.map((r) => JSON.parse(r)));
    got[0]!.done();
    expect(segmentBuffers.size).toBe(before);
    got[1]!.done();
    expect(segmentBuffers.size).toBe(before + 1);
  });

  it('each encoder says a batch of text rows is done once it has written it', async () => {
    const columns = [
      { name: 'n', type: 'integer' },
      { name: 's', type: 'varchar' },
    ];
    const encoders: [string, Encoder][] = [
      ['ndjson', encodeNdjson],
      ['json', encodeJson],
      ['csv', encodeCsv],
      ['arrow', encodeArrow],
    ];
    for (const [format, encode] of encoders) {
      let given = 0;
      const lease = new BytesLease(() => given++);
      const bytes = Buffer.from('[1,"a"],[2,"b"],[3,"c"]');
      async function* batches(): AsyncGenerator<RowBatch> {
        yield new TextRows(bytes.subarray(0, 15), 2, JSON.parse, bad, lease);
        yield new TextRows(bytes.subarray(16), 1, JSON.parse, bad, lease);
        lease.drop();
      }
      let out = 0;
      for await (const chunk of encode({ queryId: 'q', columns, batches: batches() }, { next: null }))
        out += chunk.length;
      expect(out, format).toBeGreaterThan(0);
      expect(given, format).toBe(1);
    }
  });
});
