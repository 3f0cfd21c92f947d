/**
 * Runs a post-decode stage (query/passes/post-decode-split.ts) over a decoded result. `stream`: a filter for the page cutter and a
 * projection of the rows it passes; `gather`: every row of the window read, filtered, then sorted (stable, so
 * Trino's total order settles ties the same way on every page) or grouped, and handed on from the page's offset.
 * Everything that can be refused (an operator the post-decode stage does not evaluate) is refused when the stage is built,
 * before the response starts.
 */
import type { ColumnNode, OrderNode, SelectNode } from '../../query/tree/nodes.js';
import type { PostDecodeStage } from '../../query/tree/plan.js';
import { COMPANION_SUFFIXES } from '../../blob/avro/payload-decoder.js';
import { flattenRow, type Flattening } from '../../blob/avro/flatten-rows.js';
import type { ResultColumn, ResultStream } from '../../core/result-stream.js';
import { accumulator, aggregateType, bucketOf, Held } from './aggregate.js';
import { compareKeys, compileTest, keyOf, reader, type Key, type Reading } from './evaluate.js';
import { trinoTypeOf, typeFamily } from '../../core/type-family.js';
import { rowValues } from '../../core/text-rows.js';
import { retainedBytes } from '../retained-bytes.js';
import type { MemoryAccount } from '../gateway-memory.js';
import { dedupedRows } from './dedupe.js';

type Row = readonly unknown[];
const BATCH = 1024;
/** An accumulator's own state (a closure and its counters), counted per group besides the group's keys. */
const ACCUMULATOR_BYTES = 96;

export interface PostDecodeRun {
  /** The page cutter's filter (stream mode with filters on decoded fields). */
  keep?: (row: Row) => boolean | null;
  /** The rows the page is cut from: the decoded rows (stream), or the sorted or grouped result (gather). */
  source: ResultStream;
  /** The response's columns from the rows the cutter passed (stream: the select; gather: already projected). */
  project(view: ResultStream): ResultStream;
}

interface Output {
  column: ResultColumn;
  get: (row: Row) => unknown;
}

/** The select items as outputs read from a decoded row; a decoded key or value keeps its companion columns. */
function outputs(select: readonly SelectNode[], columns: readonly ResultColumn[], read: (c: ColumnNode) => Reading) {
  return select.flatMap((s): Output[] => {
    if (s.kind !== 'select-column') return [];
    const r = read(s.column);
    const out: Output[] = [{ column: { name: s.as, type: r.type }, get: r.get }];
    const i = columns.findIndex((c) => c.name === s.column.name);
    if (s.column.source.kind === 'table' && columns[i + 1]?.name === `${s.column.name}_schema_id`) {
      COMPANION_SUFFIXES.forEach((suffix, k) => {
        out.push({
          column: { name: `${s.as}${suffix}`, type: columns[i + 1 + k]!.type },
          get: (row) => row[i + 1 + k],
        });
      });
    }
    return out;
  });
}

/**
 * The stage over a decoded result. `decoded`: the payload columns the result holds decoded; `memory`: the
 * response's account, which a sort or aggregation holds its rows or groups through.
 */
export function postDecodeRun(
  stage: PostDecodeStage,
  result: ResultStream,
  decoded: ReadonlySet<string>,
  memory: MemoryAccount,
): PostDecodeRun {
  const read = reader(result.columns, stage.extra);
  const test = stage.where ? compileTest(stage.where, read, decoded) : undefined;
  if (stage.mode === 'stream') {
    const outs = outputs(stage.select, result.columns, read);
    return {
      keep: test,
      source: result,
      project: (view) =>
        mapRows(
          view,
          outs.map((o) => o.column),
          (row) => outs.map((o) => o.get(row)),
        ),
    };
  }
  const held = new Held(stage.maxRows, memory);
  // A dedupe after decoding keeps one row per key of those the filter keeps; sorting or grouping takes it from there.
  const [rows, kept] = stage.dedupe
    ? [dedupedRows(result, test, read, stage.dedupe, new Held(stage.maxRows, memory)), undefined]
    : [result, test];
  const gathered =
    stage.groupBy.length || stage.select.some((s) => s.kind === 'aggregate')
      ? grouped(stage, rows, read, kept, held)
      : sorted(stage, rows, read, kept, held);
  return { source: gathered, project: (view) => view };
}

function mapRows(view: ResultStream, columns: ResultColumn[], map: (row: Row) => unknown[]): ResultStream {
  async function* batches() {
    for await (const rows of view.batches) yield rowValues(rows).map(map);
  }
  return { queryId: view.queryId, columns, batches: batches() };
}

/** Trino's order for ORDER BY: the direction, then NULLS LAST unless the item says otherwise. */
function orderCompare(items: { dir: 'asc' | 'desc'; nulls?: 'first' | 'last' }[]) {
  return (a: (Key | null)[], b: (Key | null)[]): number => {
    for (let i = 0; i < items.length; i++) {
      const x = a[i] ?? null;
      const y = b[i] ?? null;
      if (x === null || y === null) {
        if (x === y) continue;
        const nullsFirst = items[i]!.nulls === 'first';
        return (x === null) === nullsFirst ? -1 : 1;
      }
      const c = compareKeys(x, y);
      if (c !== 0) return items[i]!.dir === 'desc' ? -c : c;
    }
    return 0;
  };
}

function keyReader(r: { get: (row: Row) => unknown; type: string }) {
  const family = typeFamily(r.type);
  return (row: Row): Key | null => {
    const v = r.get(row);
    return v === null || v === undefined ? null : keyOf(family, v);
  };
}

/** The gathered rows from the page's offset; what they held is given back once handed on (or on failure). */
function fromOffset(
  queryId: string,
  columns: ResultColumn[],
  all: () => Promise<Row[]>,
  offset: number,
  held: Held,
): ResultStream {
  async function* batches() {
    try {
      const rows = await all();
      for (let i = offset; i < rows.length; i += BATCH) yield rows.slice(i, i + BATCH);
    } finally {
      held.release();
    }
  }
  return { queryId, columns, batches: batches() };
}

/** Events sorted by decoded fields: every kept row held (up to the cap), sorted stably, projected. */
function sorted(
  stage: PostDecodeStage,
  result: ResultStream,
  read: (c: ColumnNode) => Reading,
  test: ((row: Row) => boolean | null) | undefined,
  held: Held,
): ResultStream {
  const outs = outputs(stage.select, result.columns, read);
  const keys = stage.order.map((o: OrderNode) => {
    const s = stage.select.find((x) => x.as === o.name);
    return keyReader(read(o.column ?? (s as { column: ColumnNode }).column));
  });
  const compare = orderCompare([...stage.order]);
  const all = async () => {
    const rows: { k: (Key | null)[]; row: unknown[] }[] = [];
    for await (const batch of result.batches) {
      for (const row of rowValues(batch)) {
        if (test && test(row) !== true) continue;
        const entry = { k: keys.map((k) => k(row)), row: outs.map((o) => o.get(row)) };
        held.add(1, retainedBytes(entry));
        rows.push(entry);
      }
    }
    rows.sort((a, b) => compare(a.k, b.k));
    return rows.map((r) => r.row);
  };
  return fromOffset(
    result.queryId,
    outs.map((o) => o.column),
    all,
    stage.offset,
    held,
  );
}

/** The output columns of an aggregation: each a group key read from the row (`get`) or an aggregate (`acc`). */
function groupItems(stage: PostDecodeStage, read: (c: ColumnNode) => Reading, held: Held) {
  return stage.select.map((s) => {
    if (s.kind === 'select-column') {
      const r = read(s.column);
      return { column: { name: s.as, type: r.type }, get: r.get, acc: null };
    }
    if (s.kind === 'bucket') {
      const r = read(s.column);
      const bucket = bucketOf(s.column, s.ms);
      return { column: { name: s.as, type: r.type }, get: (row: Row) => bucket(r.get(row)), acc: null };
    }
    const value = s.column ? read(s.column) : null;
    const t = s.time && (s.fn === 'latest' || s.fn === 'earliest') ? read(s.time) : null;
    const column = { name: s.as, type: aggregateType(s, value?.type ?? null) };
    return { column, get: null, acc: accumulator(s, value, t, held) };
  });
}

/** An aggregation over decoded rows: groups by the group keys, in the order asked, then by the keys. */
function grouped(
  stage: PostDecodeStage,
  result: ResultStream,
  read: (c: ColumnNode) => Reading,
  test: ((row: Row) => boolean | null) | undefined,
  held: Held,
): ResultStream {
  const items = groupItems(stage, read, held);
  const columns = items.map((i) => i.column);
  const groupAt = stage.groupBy.map((name) => columns.findIndex((c) => c.name === name));
  const all = async () => {
    const groups = new Map<string, { keys: unknown[]; accs: ({ add(r: Row): void; result(): unknown } | null)[] }>();
    for await (const batch of result.batches) {
      for (const row of rowValues(batch)) {
        if (test && test(row) !== true) continue;
        const values = items.map((i) => (i.get ? i.get(row) : null));
        const id = JSON.stringify(
          groupAt.map((k) => values[k]),
          (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v),
        );
        let g = groups.get(id);
        if (!g) {
          // The group's keys and its id, and a few slots for each accumulator's own state.
          held.add(1, retainedBytes(values) + retainedBytes(id) + ACCUMULATOR_BYTES * items.length);
          g = { keys: values, accs: items.map((i) => (i.acc ? i.acc() : null)) };
          groups.set(id, g);
        }
        for (const a of g.accs) a?.add(row);
      }
    }
    // An aggregation without groups has one row, even over no events (count 0), as in SQL.
    if (groups.size === 0 && stage.groupBy.length === 0)
      groups.set('', { keys: items.map(() => null), accs: items.map((i) => (i.acc ? i.acc() : null)) });
    const rows = [...groups.values()].map((g) => items.map((_, k) => (g.accs[k] ? g.accs[k]!.result() : g.keys[k])));
    const order = [
      ...stage.order.map((o) => ({ at: columns.findIndex((c) => c.name === o.name), dir: o.dir, nulls: o.nulls })),
      ...groupAt
        .filter((at) => !stage.order.some((o) => columns[at]!.name === o.name))
        .map((at) => ({ at, dir: stage.order[0]?.dir ?? ('asc' as const), nulls: undefined })),
    ];
    const keyed = rows.map((row) => ({
      row,
      k: order.map((o) =>
        row[o.at] === null || row[o.at] === undefined ? null : keyOf(typeFamily(columns[o.at]!.type), row[o.at]),
      ),
    }));
    const compare = orderCompare(order);
    keyed.sort((a, b) => compare(a.k, b.k));
    return keyed.map((x) => x.row);
  };
  return fromOffset(result.queryId, columns, all, stage.offset, held);
}

/** CSV: decoded records as one column per leaf field (blob/avro/flatten-rows.ts), named by path. */
export function flattenDecoded(view: ResultStream, decodedOutputs: ReadonlySet<string>): ResultStream {
  const flat = new Map<number, Flattening>();
  view.columns.forEach((c, i) => {
    if (decodedOutputs.has(c.name) && trinoTypeOf(c.type).base === 'row') flat.set(i, flattenRow(c.name, c.type));
  });
  if (flat.size === 0) return view;
  const columns = view.columns.flatMap((c, i) => flat.get(i)?.columns ?? [c]);
  return mapRows(view, columns, (row) => row.flatMap((v, i) => flat.get(i)?.leaves(v) ?? [v]));
}
