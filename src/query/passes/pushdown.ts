/**
 * Which predicates the VAST storage evaluates itself ("pushed") and which Trino evaluates after the scan
 * ("residual"), by the VAST connector's rules (VAST_TOPIC_TABLES.md): per-column ranges, equalities, IN lists
 * and IS [NOT] NULL on bare scalar columns, ANDed across columns; `LIKE '%text%'` on varchar; OR across
 * different columns only with vast.complex_predicate_pushdown; nothing with a function on the column (regular
 * expressions, array operators, JSON paths). IS DISTINCT FROM a literal is a domain on the column (all values but
 * one, plus NULL), which Trino hands the connector like any range.
 */
import type { ColumnNode, PredicateNode } from '../tree/nodes.js';
import { compilePredicate } from '../sql/compile.js';
import { typeFamily } from '../../core/type-family.js';
import { forDisplay, predicateColumns } from './post-decode-split.js';
import { isDecoded } from '../request/decoded-column.js';

export interface PushdownReport {
  pushed: string[];
  residual: string[];
  /** Filters on decoded Avro fields: evaluated by the post-decode stage (post-decode-split.ts); absent when none. */
  gateway?: string[];
}

export interface PushdownRules {
  /** vast.complex_predicate_pushdown: OR across different columns is pushed. */
  complexPredicates: boolean;
}

function bareScalar(c: ColumnNode): boolean {
  return c.source.kind === 'table' && typeFamily(c.type) !== 'other';
}

/** The single column a pushable predicate constrains, or null when it cannot be pushed. */
function pushableColumns(p: PredicateNode, rules: PushdownRules): Set<string> | null {
  switch (p.kind) {
    case 'in':
      // An empty list is the constant FALSE: it reads nothing, and Trino folds it away.
      if (p.values.length === 0) return new Set();
      return bareScalar(p.column) ? new Set([p.column.name]) : null;
    case 'compare':
    case 'anchor':
    case 'is':
      return bareScalar(p.column) ? new Set([p.column.name]) : null;
    case 'like': {
      const ok =
        bareScalar(p.column) &&
        typeFamily(p.column.type) === 'varchar' &&
        !p.caseInsensitive &&
        !p.escape &&
        /^%[^%_]+%$/.test(p.pattern);
      return ok ? new Set([p.column.name]) : null;
    }
    case 'match':
    case 'array':
      // A function on the column (regexp_like, array_except, arrays_overlap): evaluated after the scan.
      return null;
    case 'not':
      // NOT of a range, equality, IN or IS NULL is still a domain on the column; NOT LIKE is not.
      if (p.inner.kind === 'like') return null;
      // De Morgan: NOT (a OR b) is (NOT a) AND (NOT b); NOT (a AND b) is an OR.
      if (p.inner.kind === 'and' || p.inner.kind === 'or') {
        const flipped: PredicateNode = {
          kind: p.inner.kind === 'and' ? 'or' : 'and',
          items: p.inner.items.map((inner): PredicateNode => ({ kind: 'not', inner })),
        };
        return pushableColumns(flipped, rules);
      }
      return pushableColumns(p.inner, rules);
    case 'and':
    case 'or': {
      const cols = new Set<string>();
      for (const item of p.items) {
        const c = pushableColumns(item, rules);
        if (!c) return null;
        for (const name of c) cols.add(name);
      }
      if (p.kind === 'or' && cols.size > 1 && !rules.complexPredicates) return null;
      return cols;
    }
  }
}

/** Labels each top-level conjunct of a WHERE tree pushed or residual, as SQL text. */
export function classifyPushdown(where: PredicateNode | null, rules: PushdownRules): PushdownReport {
  const report: PushdownReport = { pushed: [], residual: [] };
  if (!where) return report;
  const conjuncts = where.kind === 'and' ? where.items : [where];
  for (const c of conjuncts) {
    if (predicateColumns(c).some(isDecoded)) {
      report.gateway ??= [];
      report.gateway.push(compilePredicate(forDisplay(c)!));
    } else (pushableColumns(c, rules) ? report.pushed : report.residual).push(compilePredicate(c));
  }
  return report;
}
