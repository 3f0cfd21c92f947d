/**
 * Top values of low-cardinality fields from one aggregation: the candidates (fields with few distinct values among
 * the sample events) are grouped together, `count` per combination, and each field's counts are the sums over the
 * others (its marginal). A result cut at its row limit makes the shares approximate, and says so.
 */
import { type JsonNode, member, scalarText } from './json-tree.js';

export const MAX_CANDIDATES = 5;
export const MAX_DISTINCT = 10;
export const COMBINATION_LIMIT = 1000;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `$.customer.address.country` -> `value->customer->address->>country`; undefined for paths the grammar can't name. */
export function arrowPath(jsonPath: string, column = 'value'): string | undefined {
  const steps = jsonPath.replace(/^\$\.?/, '').split('.');
  if (steps.length === 0 || !steps.every((s) => NAME.test(s))) return undefined;
  const last = steps.pop()!;
  return [column, ...steps].join('->') + `->>${last}`;
}

export interface Candidate {
  /** What the panel calls it (a column name or the JSON field's name). */
  label: string;
  /** The column or arrow path grouped by. */
  field: string;
  /** Where to read it in a sample row: a column, then a JSON path inside it. */
  column: string;
  path: string[];
}

/** Candidates whose values among the sample rows are few and repeat (at most MAX_CANDIDATES). */
export function lowCardinality(candidates: readonly Candidate[], rows: readonly JsonNode[]): Candidate[] {
  const scored = candidates.flatMap((c) => {
    const seen = new Set<string>();
    let present = 0;
    for (const row of rows) {
      let node = member(row, c.column);
      for (const step of c.path) node = member(node, step);
      const text = node?.kind === 'object' || node?.kind === 'array' ? undefined : scalarText(node);
      if (text === undefined) continue;
      present++;
      seen.add(text);
    }
    // Repeating: fewer distinct values than half the rows that have one.
    const low = present >= 4 && seen.size <= MAX_DISTINCT && seen.size * 2 <= present;
    return low ? [{ c, present, distinct: seen.size }] : [];
  });
  // Fewest distinct values first (their combinations stay few), then the most present.
  return scored
    .sort((a, b) => a.distinct - b.distinct || b.present - a.present)
    .slice(0, MAX_CANDIDATES)
    .map((s) => s.c);
}

/** The aggregation body's select, groupBy, order and limit for the candidates (the caller adds window and where). */
export function topValuesQuery(cs: readonly Candidate[]) {
  return {
    select: [...cs.map((c, i) => `f${i}:${c.field}`), { fn: 'count', as: 'n' }],
    groupBy: cs.map((c) => c.field),
    order: [{ field: 'n', dir: 'desc' }],
    limit: COMBINATION_LIMIT,
  };
}

export interface TopValues {
  label: string;
  values: { value: string | null; count: number; share: number }[];
}

/** Each candidate's top values (at most `top`) from the aggregation's rows. */
export function marginals(
  cs: readonly Candidate[],
  rows: readonly Record<string, unknown>[],
  top = 5,
): { fields: TopValues[]; total: number; approximate: boolean } {
  const total = rows.reduce((t, r) => t + Number(r.n), 0);
  const fields = cs.map((c, i) => {
    const sums = new Map<string | null, number>();
    for (const r of rows) {
      const v = r[`f${i}`];
      const key = v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v);
      sums.set(key, (sums.get(key) ?? 0) + Number(r.n));
    }
    const values = [...sums]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([value, count]) => ({ value, count, share: total ? count / total : 0 }));
    return { label: c.label, values };
  });
  return { fields, total, approximate: rows.length >= COMBINATION_LIMIT };
}
