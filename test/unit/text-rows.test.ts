/**
 * Batches of rows as text (core/text-rows.ts): split at row boundaries, and cut to a page by the page cutter
 * without being parsed when nothing there needs their values.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { TextRows, type RowBatch } from '../../src/core/text-rows.js';
import { PageCutter } from '../../src/read/page-cutter.js';

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
});
