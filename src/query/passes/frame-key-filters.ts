/**
 * Filters on an Avro `key` stay pushed down: the stored key is a Confluent frame, so `key=eq.pay-1` must compare
 * the column with the framed bytes, not with the text. The key's text is framed once per version of the key
 * subject that can hold it (blob/avro/key-framing.ts computes the frames before planning):
 * `key=eq.pay-1` -> `"key" IN (X'00 <id1> 0a7061792d31', X'00 <id2> ...')`, a bare column against varbinary
 * literals, which the storage evaluates. `neq` is NOT IN; `in` lists every value in every framing. Ranges and
 * patterns mean nothing on framed bytes, so they are refused. A pure pass over the filter trees, run by the
 * planning entry first, so explain, paging tokens and the query all see the same SQL.
 */
import { ApiError } from '../../core/errors.js';
import type { LiteralNode, PredicateNode } from '../tree/nodes.js';
import type { KeyFrames } from '../tree/key-frames.js';

/** A comparison with the table's `key` column, the only filters framing rewrites. */
type KeyFilter = Extract<PredicateNode, { kind: 'compare' | 'in' | 'like' | 'match' }>;

function keyFilter(p: PredicateNode): p is KeyFilter {
  const compared = p.kind === 'compare' || p.kind === 'in' || p.kind === 'like' || p.kind === 'match';
  return compared && p.column.name === 'key' && p.column.source.kind === 'table';
}

/** A key literal's text: the bytes of a varbinary literal as UTF-8, any other value as written. */
function keyText(l: LiteralNode): string {
  return l.value.t === 'varbinary' ? l.value.v.toString('utf8') : String((l.value as { v: unknown }).v);
}

/** The texts the filters compare the `key` column with (eq, neq and in), each once: what needs framing. */
export function keyTexts(...wheres: (PredicateNode | null)[]): string[] {
  const texts = new Set<string>();
  const visit = (p: PredicateNode): void => {
    if (p.kind === 'and' || p.kind === 'or') p.items.forEach(visit);
    else if (p.kind === 'not') visit(p.inner);
    else if (keyFilter(p) && p.kind === 'in') for (const l of p.values) texts.add(keyText(l));
    else if (keyFilter(p) && p.kind === 'compare') texts.add(keyText(p.value));
  };
  for (const w of wheres) if (w) visit(w);
  return [...texts];
}

/** The filter tree with every comparison on the table's `key` column made a comparison with framed bytes. */
export function frameKeyFilters(where: PredicateNode | null, frames: KeyFrames): PredicateNode | null {
  return where && frame(where, frames);
}

function frame(p: PredicateNode, f: KeyFrames): PredicateNode {
  if (p.kind === 'and' || p.kind === 'or') return { kind: p.kind, items: p.items.map((x) => frame(x, f)) };
  if (p.kind === 'not') return { kind: 'not', inner: frame(p.inner, f) };
  if (!keyFilter(p)) return p;
  const framed = (values: readonly LiteralNode[]): LiteralNode[] =>
    values.flatMap((l) =>
      (f.frames.get(keyText(l)) ?? []).map((bytes): LiteralNode => ({
        kind: 'literal',
        type: 'varbinary',
        value: { t: 'varbinary', v: bytes },
      })),
    );
  if (p.kind === 'in') return { kind: 'in', column: p.column, values: framed(p.values) };
  if (p.kind === 'compare' && (p.op === 'eq' || p.op === 'neq')) {
    const list: PredicateNode = { kind: 'in', column: p.column, values: framed([p.value]) };
    return p.op === 'eq' ? list : { kind: 'not', inner: list };
  }
  const op = p.kind === 'compare' ? p.op : p.kind;
  throw new ApiError(
    'TG_BAD_OPERATOR',
    `key is an Avro key (subject ${f.subject}): filter it with eq, neq, in or is, not ${op}`,
    { column: 'key', operator: op },
  );
}
