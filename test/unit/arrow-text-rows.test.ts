/**
 * Arrow (and Parquet) built from rows as text against the value path, byte for byte: the same JSON text of rows
 * (as Trino writes it, and in forms it does not: escapes, raw and invalid UTF-8, odd numbers, rows of the wrong
 * length) encoded once from the bytes (arrow-tuple.ts, arrow-text-column.ts) and once parsed as the reader parses
 * it. A value the value path rejects must fail the text path too. Seeded random pages mix every type with nulls at
 * every depth.
 */
import { Buffer } from 'node:buffer';
import { tableFromIPC, type Data } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { ResultColumn } from '../../src/core/result-stream.js';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { TextRows, type RowBatch } from '../../src/core/text-rows.js';
import { random, textBatches } from '../cases/text-batches.js';
import { encodeArrow } from '../../src/encode/arrow/arrow-encoder.js';
import type { Encoder } from '../../src/encode/encoder.js';
import { encodeParquet } from '../../src/encode/parquet/parquet-encoder.js';
import { CASES, ENUM } from './arrow-text-cases.js';

const str = (s: string) => JSON.stringify(s);

/** Encodes the same batches of rows once as text and once as values; each is the bytes, or the error thrown. */
async function both(encode: Encoder, columns: ResultColumn[], rowTexts: (string | Buffer)[][], batchRows = 7) {
  const batches = textBatches(columns, rowTexts, batchRows);
  const run = async (as: (b: TextRows) => RowBatch) => {
    async function* gen() {
      for (const b of batches) yield as(b);
    }
    const chunks: Buffer[] = [];
    try {
      for await (const c of encode({ queryId: 'q', columns, batches: gen() }, { next: null }))
        chunks.push(Buffer.from(c));
    } catch (err) {
      return err as Error;
    }
    return Buffer.concat(chunks);
  };
  return [await run((b) => b), await run((b) => b.values())] as const;
}

/**
 * Asserts both encodings are the same bytes, or both failed; returns whether they succeeded. An Arrow stream with
 * a dictionary (an enum) is compared as its decoded buffers instead: arrow-js numbers dictionaries from a counter
 * per process, so two streams of the same rows differ in the dictionary's id.
 */
function same([text, values]: readonly [Buffer | Error, Buffer | Error], what: string): boolean {
  if (values instanceof Error) {
    expect(text, `${what}: the value path fails (${values.message}), the text path must too`).toBeInstanceOf(Error);
    return false;
  }
  if (text instanceof Error) throw new Error(`${what}: the text path failed: ${text.message}`);
  if (text.equals(values)) return true;
  expect(what.startsWith('enum'), `${what}: the bytes differ`).toBe(true);
  const decoded = (b: Buffer) => tableFromIPC(b).batches.map((batch) => dataBuffers(batch.data));
  expect(decoded(text), what).toEqual(decoded(values));
  return true;
}

/** The buffers of Arrow data and of its children and dictionary, as plain arrays. */
function dataBuffers(d: Data): unknown {
  const bytes = (a: ArrayBufferView | undefined) =>
    a === undefined ? [] : [...new Uint8Array(a.buffer, a.byteOffset, a.byteLength)];
  return {
    type: String(d.type),
    length: d.length,
    nullCount: d.nullCount,
    nulls: d.nullCount === 0 ? [] : bytes(d.nullBitmap),
    values: bytes(d.values as ArrayBufferView | undefined),
    offsets: bytes(d.valueOffsets as ArrayBufferView | undefined),
    children: d.children.map(dataBuffers),
    dictionary: d.dictionary?.data.map(dataBuffers) ?? null,
  };
}

/** The texts of each type the value path encodes (found one by one), for pages that must encode. */
async function acceptedCases(): Promise<Record<string, (string | Buffer)[]>> {
  const out: Record<string, (string | Buffer)[]> = {};
  for (const [type, texts] of Object.entries(CASES)) {
    out[type] = [];
    for (const t of texts) {
      const [, values] = await both(encodeArrow, [{ name: 'v', type }], [[t]]);
      if (!(values instanceof Error)) out[type].push(t);
    }
  }
  return out;
}

describe('Arrow from rows as text is what the value path makes', () => {
  it('every hard case of every type, alone and with null, each as the value path takes or rejects it', async () => {
    let accepted = 0;
    for (const [type, texts] of Object.entries(CASES)) {
      const columns = [
        { name: 'v', type },
        { name: 'k', type: 'varchar' },
      ];
      for (const t of texts) {
        const rows = [t, 'null', t].map((v, i) => [v, str(`row ${i}`)]);
        if (same(await both(encodeArrow, columns, rows), `${type} ${String(t)}`)) accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(100); // most cases encode: the comparison is not of two failures
  });

  it('seeded random pages of every type at once', async () => {
    const cases = await acceptedCases();
    const types = Object.keys(cases).filter((t) => t !== ENUM); // bytes compared: no dictionary id (see `same`)
    const columns = types.map((type, i) => ({ name: `c${i} "${type}"`, type }));
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed);
      const rows = Array.from({ length: 1 + Math.floor(next() * 40) }, () =>
        types.map((t) => {
          const texts = cases[t]!;
          return next() < 0.15 ? 'null' : texts[Math.floor(next() * texts.length)]!;
        }),
      );
      const result = await both(encodeArrow, columns, rows, 1 + Math.floor(next() * 9));
      expect(same(result, `seed ${seed}`)).toBe(true);
    }
  });

  it('rows of the wrong length or not arrays, white space, and an empty batch', async () => {
    const columns = [
      { name: 'a', type: 'bigint' },
      { name: 'b', type: 'varchar' },
    ];
    const rows = [['1'], ['2', '"x"', '[3]'], [' 4 ', ' "y" ']];
    expect(same(await both(encodeArrow, columns, rows), 'lengths')).toBe(true);
    expect(same(await both(encodeArrow, columns, []), 'empty')).toBe(true);
    const notArrays = new TextRows(Buffer.from('{"0":5,"1":"z"} , [6,"w"]'), 2, JSON.parse, () => new Error('bad'));
    const run = async (batch: RowBatch) => {
      const chunks: Buffer[] = [];
      async function* gen() {
        yield batch;
      }
      for await (const c of encodeArrow({ queryId: 'q', columns, batches: gen() }, { next: null }))
        chunks.push(Buffer.from(c));
      return Buffer.concat(chunks);
    };
    expect((await run(notArrays)).equals(await run(notArrays.values()))).toBe(true);
  });

  it('text that is not JSON fails the stream with the batch error', async () => {
    const columns = [
      { name: 'a', type: 'bigint' },
      { name: 'h', type: 'array(row(key varchar, value varbinary))' },
    ];
    for (const text of ['[1', '[1,[]', '[1,[]]x', '[nul,[]]', '["unclosed]', '[1,[]]]', '[1,[]],', '[1,[[,]]]']) {
      const batch = new TextRows(Buffer.from(text), 1, parseLosslessJson, () => new Error('not rows'));
      async function* gen() {
        yield batch;
      }
      const read = async () => {
        for await (const _ of encodeArrow({ queryId: 'q', columns, batches: gen() }, { next: null }));
      };
      await expect(read(), text).rejects.toThrow('not rows');
    }
  });

  it('Parquet: the same file from text as from values', async () => {
    const cases = await acceptedCases();
    const types = Object.keys(cases).filter((t) => t !== ENUM); // the Parquet writer takes no dictionary here
    const columns = types.map((type, i) => ({ name: `c${i}`, type }));
    const next = random(7);
    const rows = Array.from({ length: 60 }, () =>
      types.map((t) => (next() < 0.15 ? 'null' : cases[t]![Math.floor(next() * cases[t]!.length)]!)),
    );
    expect(same(await both(encodeParquet, columns, rows, 13), 'parquet')).toBe(true);
  });
});
