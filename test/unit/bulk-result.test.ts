/**
 * When a bulk read's slices start (bulk-result.ts): in order, a slice starts once the slice before it has its first
 * rows (Trino has scanned and sorted it), with at most `parallel` unfinished at once, so the first slice is not
 * sorted alongside the others before its first row; unordered, every slot starts at once. Each slice query is
 * gated here: its first batch comes only when the test opens its gate, so the test sees what had started by then.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/query/planner.js';
import { bulkResult } from '../../src/read/bulk-result.js';
import type { QueryOptions, TrinoPort, TrinoResult } from '../../src/trino/trino-port.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { rowValues, type RowBatch } from '../../src/core/text-rows.js';

const COLUMNS = [table('key', 'varchar'), table('timestamp_broker', 'timestamp(3)')];
const topic = topicOf(COLUMNS);
const NOW = Date.parse('2026-11-30T08:00:00.000Z');

function bulkPlan(parallel: number, unordered = false) {
  const p = plan(
    {
      kind: 'read',
      topic,
      read: {
        where: null,
        since: '2026-11-30T00:00:00Z',
        until: '2026-11-30T04:00:00Z',
        limit: 'all',
        parallel,
        ...(unordered ? { unordered: true } : {}),
      },
      token: null,
    },
    testPolicy({ parallel: { default: 1, max: 8 } }),
    NOW,
  );
  return { ...p, bulk: p.bulk! };
}

interface Slice {
  sql: string;
  /** Lets the slice's first batch through. */
  open(): void;
  /** A failure instead of the first batch. */
  fail(err: Error): void;
  batchesPulled: number;
  finished: boolean;
  cancelled: boolean;
}

/** A port whose every query answers with two batches of its own slice number, the first behind a gate. */
function gatedPort() {
  const slices: Slice[] = [];
  const trino: Pick<TrinoPort, 'query'> = {
    async query(sql: string, _opts?: QueryOptions): Promise<TrinoResult> {
      const n = slices.length;
      let open!: () => void;
      let fail!: (err: Error) => void;
      const gate = new Promise<void>((resolve, reject) => {
        open = resolve;
        fail = reject;
      });
      gate.catch(() => undefined);
      const s: Slice = { sql, open, fail, batchesPulled: 0, finished: false, cancelled: false };
      slices.push(s);
      async function* batches() {
        await gate;
        s.batchesPulled++;
        yield [[`s${n}-a`, '2026-11-30 00:00:00.000']];
        s.batchesPulled++;
        yield [[`s${n}-b`, '2026-11-30 00:00:00.000']];
        s.finished = true;
      }
      return {
        queryId: `q${n}`,
        columns: COLUMNS.map((c) => ({ name: c.name, type: c.type })),
        batches: batches(),
        cancel: async () => void (s.cancelled = !s.finished),
      };
    },
  };
  return { trino: trino as TrinoPort, slices };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

async function readAll(batches: AsyncIterable<RowBatch>) {
  const keys: unknown[] = [];
  for await (const b of batches) for (const row of rowValues(b)) keys.push(row[0]);
  return keys;
}

describe('bulk read slices', () => {
  it('in order, starts each slice once the one before it has rows, before that one is read to its end', async () => {
    const { trino, slices } = gatedPort();
    const p = bulkPlan(4);
    expect(p.bulk.bounds).toHaveLength(5);
    const result = await bulkResult(trino, p, {});
    await settle();
    expect(slices).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      slices[i]!.open();
      await settle();
      // Slice i has its first batch, unread: the next one is being scanned and sorted meanwhile.
      expect(slices).toHaveLength(i + 2);
      expect(slices[i]!.finished).toBe(false);
    }
    slices[3]!.open();
    expect(await readAll(result.batches)).toEqual(['s0-a', 's0-b', 's1-a', 's1-b', 's2-a', 's2-b', 's3-a', 's3-b']);
    // Each slice reads its own adjacent range of broker time.
    const from = slices.map((s) => /"timestamp_broker" >= TIMESTAMP '([^']+)'/.exec(s.sql)?.[1]);
    expect(from).toEqual([
      '2026-11-30 00:00:00.000',
      '2026-11-30 01:00:00.000',
      '2026-11-30 02:00:00.000',
      '2026-11-30 03:00:00.000',
    ]);
  });

  it('in order, never has more than `parallel` slices unfinished', async () => {
    const { trino, slices } = gatedPort();
    const result = await bulkResult(trino, bulkPlan(2), {});
    // parallel=2 reads the window as two slices: both start in turn, neither waits for a free slot.
    slices[0]!.open();
    await settle();
    expect(slices).toHaveLength(2);
    slices[1]!.open();
    expect(await readAll(result.batches)).toEqual(['s0-a', 's0-b', 's1-a', 's1-b']);

    // More slices than slots (the plan's concurrency below its slice count): the third waits until one ends.
    const more = gatedPort();
    const p = bulkPlan(4);
    const r = await bulkResult(more.trino, { ...p, bulk: { ...p.bulk, concurrency: 2 } }, {});
    more.slices[0]!.open();
    await settle();
    more.slices[1]!.open();
    await settle();
    expect(more.slices).toHaveLength(2);
    const it = r.batches[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual([['s0-a', '2026-11-30 00:00:00.000']]);
    await settle();
    expect(more.slices).toHaveLength(2);
    await it.next(); // s0-b
    await it.next(); // slice 0 ends; slice 1's first batch
    await settle();
    expect(more.slices).toHaveLength(3);
    more.slices[2]!.open();
    await settle();
    // Slice 2 has rows, but slices 1 and 2 are unfinished: slice 3 waits until slice 1 ends.
    expect(more.slices).toHaveLength(3);
    expect(rowValues((await it.next()).value)[0]![0]).toBe('s1-b');
    expect(rowValues((await it.next()).value)[0]![0]).toBe('s2-a');
    expect(more.slices).toHaveLength(4);
    more.slices[3]!.open();
    const rest: unknown[] = [];
    for (let x = await it.next(); !x.done; x = await it.next()) for (const row of rowValues(x.value)) rest.push(row[0]);
    expect(rest).toEqual(['s2-b', 's3-a', 's3-b']);
  });

  it('unordered, starts every slot at once', async () => {
    const { trino, slices } = gatedPort();
    const result = await bulkResult(trino, bulkPlan(3, true), {});
    await settle();
    expect(slices).toHaveLength(3);
    for (const s of slices) s.open();
    expect((await readAll(result.batches)).sort()).toEqual(['s0-a', 's0-b', 's1-a', 's1-b', 's2-a', 's2-b']);
  });

  it('a reader that stops early cancels every slice it started, the one being read included', async () => {
    const { trino, slices } = gatedPort();
    const result = await bulkResult(trino, bulkPlan(3), {});
    slices[0]!.open();
    await settle();
    slices[1]!.open();
    await settle();
    expect(slices).toHaveLength(3);
    const it = result.batches[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
    expect(slices.map((s) => s.cancelled)).toEqual([true, true, true]);
  });

  it("a later slice's failure surfaces where its rows would come, after the rows before it", async () => {
    const { trino, slices } = gatedPort();
    const result = await bulkResult(trino, bulkPlan(2), {});
    slices[0]!.open();
    await settle();
    slices[1]!.fail(new Error('slice 1 failed'));
    const it = result.batches[Symbol.asyncIterator]();
    expect((await it.next()).value[0][0]).toBe('s0-a');
    expect((await it.next()).value[0][0]).toBe('s0-b');
    await expect(it.next()).rejects.toThrow('slice 1 failed');
  });
});
