import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { EncodeOptions } from '../../src/encode/encoder.js';
import { encodedReadable, encoderRegistry, type MediaType } from '../../src/encode/encoder-registry.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';

const columns = [
  { name: 'id', type: 'bigint' },
  { name: 'value', type: 'varbinary' },
];
const row = (id: number) => [id, Buffer.from(`{"id":${id}}`).toString('base64')];
const EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
const FORMATS = Object.keys(encoderRegistry) as MediaType[];
const trinoFailure = Object.assign(new Error('Query exceeded per-node memory limit; internal detail'), {
  errorName: 'EXCEEDED_LOCAL_MEMORY_LIMIT',
});
const options: EncodeOptions = {
  next: null,
  onError: (err) => ({
    code: 'TG_TRINO_FAILED',
    message: `Trino failed: ${(err as { errorName?: string }).errorName}`,
    status: 502,
  }),
};
const queryId = '20261101_000000_00001_abcde';

/** Runs an encoder to the end; `error` is what the generator threw, if anything. */
async function drain(mediaType: MediaType, batches: unknown[][][], failWith?: unknown, opts = options) {
  const chunks: Buffer[] = [];
  let error: unknown;
  try {
    for await (const c of encoderRegistry[mediaType].encode(
      inMemoryResult(columns, batches, { failWith, queryId }),
      opts,
    )) {
      chunks.push(Buffer.from(c));
    }
  } catch (err) {
    error = err;
  }
  return { bytes: Buffer.concat(chunks), error };
}

const expectedError = {
  code: 'TG_TRINO_FAILED',
  message: 'Trino failed: EXCEEDED_LOCAL_MEMORY_LIMIT',
  status: 502,
  queryId,
};

describe('complete responses say so', () => {
  const batches = [[row(1), row(2)], [], [row(3)]];
  it('JSON: "complete":true', async () => {
    const { bytes, error } = await drain('application/json', batches);
    expect(error).toBeUndefined();
    const body = JSON.parse(bytes.toString());
    expect(body).toMatchObject({ complete: true, next: null, rows: [{ id: 1 }, { id: 2 }, { id: 3 }] });
    expect(body.error).toBeUndefined();
  });
  it('NDJSON: ends with an empty line', async () => {
    const { bytes } = await drain('application/x-ndjson', batches);
    expect(bytes.toString()).toBe(
      '{"id":1,"value":{"id":1}}\n{"id":2,"value":{"id":2}}\n{"id":3,"value":{"id":3}}\n\n',
    );
  });
  it('CSV: plain RFC 4180, nothing after the last row', async () => {
    const { bytes, error } = await drain('text/csv', batches);
    expect(error).toBeUndefined();
    expect(bytes.toString()).toBe('id,value\r\n1,"{""id"":1}"\r\n2,"{""id"":2}"\r\n3,"{""id"":3}"\r\n');
  });
  it('Arrow: ends with the end-of-stream marker', async () => {
    const { bytes, error } = await drain('application/vnd.apache.arrow.stream', batches);
    expect(error).toBeUndefined();
    expect(bytes.subarray(-8)).toEqual(EOS);
    expect(tableFromIPC(bytes).getChild('id')!.toArray()).toEqual(BigInt64Array.of(1n, 2n, 3n));
  });
  it.each(FORMATS)('%s: an empty result is complete too', async (mediaType) => {
    const { bytes, error } = await drain(mediaType, [[], []]);
    expect(error).toBeUndefined();
    const text = bytes.toString('latin1');
    if (mediaType === 'application/json') expect(JSON.parse(text)).toMatchObject({ rows: [], complete: true });
    if (mediaType === 'application/x-ndjson') expect(text).toBe('\n');
    if (mediaType === 'text/csv') expect(text).toBe('id,value\r\n');
    if (mediaType === 'application/vnd.apache.arrow.stream') expect(bytes.subarray(-8)).toEqual(EOS);
  });
});

describe('next', () => {
  it('is read when the JSON body ends, so the caller can set it once the last row is known', async () => {
    const opts: EncodeOptions = { next: null };
    const result = inMemoryResult(columns, [[row(1)]]);
    const chunks: Buffer[] = [];
    for await (const c of encoderRegistry['application/json'].encode(result, opts)) {
      chunks.push(Buffer.from(c));
      opts.next = '/v1/topics/t/events?cursor=late';
    }
    expect(JSON.parse(Buffer.concat(chunks).toString()).next).toBe('/v1/topics/t/events?cursor=late');
  });
});

describe('a failure after the first byte is visible in the body, and the encoder throws (the transfer is aborted)', () => {
  const batches = [[row(1)], [row(2)]];
  it('JSON: valid JSON with "complete":false and the mapped error, no meta', async () => {
    const { bytes, error } = await drain('application/json', batches, trinoFailure, {
      ...options,
      meta: { batch: 'tok' },
    });
    expect(error).toBe(trinoFailure);
    const body = JSON.parse(bytes.toString());
    expect(body).toEqual({
      columns,
      rows: [
        { id: 1, value: { id: 1 } },
        { id: 2, value: { id: 2 } },
      ],
      next: null,
      complete: false,
      error: expectedError,
    });
  });
  it('NDJSON: a last line {"error":...} and no final empty line', async () => {
    const { bytes, error } = await drain('application/x-ndjson', batches, trinoFailure);
    expect(error).toBe(trinoFailure);
    const lines = bytes.toString().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.slice(0, 2).map((l) => JSON.parse(l).id)).toEqual([1, 2]);
    expect(JSON.parse(lines[2]!)).toEqual({ error: expectedError });
    expect(lines[3]).toBe('');
  });
  it('CSV: a last line "#error {...}"', async () => {
    const { bytes, error } = await drain('text/csv', batches, trinoFailure);
    expect(error).toBe(trinoFailure);
    const text = bytes.toString();
    expect(text.startsWith('id,value\r\n1,"{""id"":1}"\r\n2,"{""id"":2}"\r\n#error ')).toBe(true);
    expect(JSON.parse(text.split('\r\n').at(-2)!.slice('#error '.length))).toEqual(expectedError);
  });
  it('Arrow: the generator throws and no end-of-stream marker is written', async () => {
    const { bytes, error } = await drain('application/vnd.apache.arrow.stream', batches, trinoFailure);
    expect(error).toBe(trinoFailure);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.subarray(-8)).not.toEqual(EOS);
  });
  it('the default mapping reveals nothing of the error', async () => {
    const { bytes } = await drain('application/x-ndjson', batches, trinoFailure, { next: null });
    expect(bytes.toString()).not.toContain('memory');
    expect(JSON.parse(bytes.toString().split('\n')[2]!).error).toMatchObject({
      code: 'TG_STREAM_FAILED',
      status: 502,
      queryId,
    });
  });
});

describe('a failure before the first byte is thrown for a normal error response', () => {
  it.each(FORMATS)('%s', async (mediaType) => {
    for (const batches of [[], [[], []]]) {
      const { bytes, error } = await drain(mediaType, batches, trinoFailure);
      expect(error).toBe(trinoFailure);
      expect(bytes.length).toBe(0);
    }
  });
});

describe('streaming', () => {
  // Parquet buffers a row group before it can send it: its bound is in row groups (test/unit/encode-parquet.test.ts).
  const PAGE_FRAMED = FORMATS.filter((m) => m !== 'application/vnd.apache.parquet');
  it.each(PAGE_FRAMED)('%s pulls batch k+1 only after the output of batch k was taken', async (mediaType) => {
    const ids = [1, 2, 3, 4];
    const result = inMemoryResult(
      columns,
      ids.map((id) => [row(id)]),
    );
    const gen = encoderRegistry[mediaType].encode(result, options);
    let seen = Buffer.alloc(0);
    // Each batch's payload `{"id":N}` shows up in every format's output (CSV doubles the quotes, Arrow has the bytes).
    const idsSeen = () => ids.filter((id) => seen.includes(`{"id":${id}}`) || seen.includes(`{""id"":${id}}`));
    for (;;) {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)); // give it every chance to read ahead
      // Every batch pulled, except the one being encoded now, has reached the consumer.
      expect(result.pulled).toBeLessThanOrEqual(idsSeen().length + 1);
      const next = await gen.next();
      if (next.done) break;
      seen = Buffer.concat([seen, Buffer.from(next.value)]);
    }
    expect(idsSeen()).toEqual(ids);
  });

  it('encodedReadable does not read ahead of a paused consumer', async () => {
    const result = inMemoryResult(
      columns,
      [1, 2, 3, 4, 5, 6].map((id) => [row(id)]),
    );
    const readable = encodedReadable(encoderRegistry['application/x-ndjson'].encode(result, options));
    readable.read(0); // start reading, as a pipe to a full socket would, then take nothing
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(result.pulled).toBeGreaterThanOrEqual(1);
    expect(result.pulled).toBeLessThanOrEqual(2); // one chunk buffered, one being encoded
    let text = '';
    readable.setEncoding('utf8').on('data', (c: string) => (text += c));
    await new Promise((r) => readable.on('end', r));
    expect(text.split('\n')).toHaveLength(8);
  });

  it('closing the output early closes the result (cancelling the query)', async () => {
    const result = inMemoryResult(columns, [[row(1)], [row(2)], [row(3)]]);
    const gen = encoderRegistry['text/csv'].encode(result, options);
    await gen.next();
    await gen.return();
    expect(result.closed).toBe(true);
    expect(result.pulled).toBe(1);
  });
});
