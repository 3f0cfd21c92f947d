/**
 * A WHERE condition as the body's `where` (request/where-schema.ts): leaves `{field, op, value}` under `and`, `or`
 * and `not`. Conditions between literals are folded (`1=0` and `FALSE` make the whole condition false: a schema
 * probe), nested ANDs and ORs are flattened, and a column always ends on the left (`5 < x` is `x > 5`).
 */
import type { Where } from '../request/where-schema.js';
import type { CompareSqlOp, Condition, SqlLiteral, ValueExpr } from './statement-ast.js';
import type { SqlRefusals } from './sql-error.js';
import { escapeChar, likeText, literalValue } from './sql-literals.js';
import type { Fields } from './sql-functions.js';

/** A condition as a body filter, or a constant. */
export type Folded = Where | boolean;

const OPS = { '=': 'eq', '<>': 'neq', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte', distinct: 'isdistinct' } as const;
const FLIPPED = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=', distinct: 'distinct' } as const;

export class WhereTranslation {
  constructor(
    private readonly refuse: SqlRefusals,
    private readonly fields: Fields,
  ) {}

  /** The condition folded and translated; recursion follows the parser's tree, whose depth the parser capped. */
  fold(c: Condition): Folded {
    switch (c.k) {
      case 'and':
      case 'or':
        return this.group(
          c.k,
          c.items.map((i) => this.fold(i)),
        );
      case 'not': {
        const inner = this.fold(c.inner);
        return typeof inner === 'boolean' ? !inner : { not: inner };
      }
      case 'compare':
        return this.compare(c.op, c.left, c.right);
      case 'in':
        return this.leaf(c.value, 'in', () => c.list.map((v) => this.literal(v, 'in an IN list')));
      case 'like': {
        const esc = escapeChar(c.escape ? this.lit(c.escape, 'after ESCAPE') : null, c.at, this.refuse);
        const pattern = this.lit(c.pattern, `after ${c.ci ? 'ILIKE' : 'LIKE'}`);
        if (pattern.t !== 'string')
          throw this.refuse.malformed('LIKE takes a string pattern', { offset: c.pattern.at });
        return this.leaf(c.value, c.ci ? 'ilike' : 'like', () => likeText(pattern.v, esc, c.pattern.at, this.refuse));
      }
      case 'is':
        return this.leaf(c.value, 'is', () => (c.what === 'null' ? null : c.what));
      case 'between':
        return this.group('and', [this.compare('>=', c.value, c.lo), this.compare('<=', c.value, c.hi)]);
      case 'value':
        return this.bare(c.value);
    }
  }

  /** AND / OR of folded items: constants decide or drop out, nested groups of the same kind merge. */
  private group(kind: 'and' | 'or', items: Folded[]): Folded {
    const decisive = kind === 'or';
    const out: Where[] = [];
    for (const item of items) {
      if (item === decisive) return decisive;
      if (item === !decisive) continue;
      if (typeof item === 'object' && kind in item) out.push(...(item as Record<string, Where[]>)[kind]!);
      else out.push(item as Where);
    }
    if (out.length === 0) return !decisive;
    if (out.length === 1) return out[0]!;
    return kind === 'and' ? { and: out } : { or: out };
  }

  private compare(op: CompareSqlOp, left: ValueExpr, right: ValueExpr): Folded {
    if (left.k === 'literal' && right.k === 'literal')
      return constantCompare(op, left.lit, right.lit, left.at, this.refuse);
    if (left.k !== 'column' && right.k === 'column') return this.compare(FLIPPED[op], right, left);
    // `x IS DISTINCT FROM NULL` holds when x is not null (the one comparison with NULL that is ever true).
    if (op === 'distinct' && right.k === 'literal' && right.lit.t === 'null') {
      return this.leaf(left, 'is', () => 'not_null');
    }
    if (right.k === 'column') {
      throw this.refuse.notInSubset(
        'A comparison of two columns',
        { offset: left.at },
        'compare a column with a literal',
      );
    }
    return this.leaf(left, OPS[op], () => this.literal(right, 'to compare with'));
  }

  /** A bare value as a condition: a (boolean) column is `= TRUE`; TRUE and FALSE are constants. */
  private bare(v: ValueExpr): Folded {
    if (v.k === 'literal' && v.lit.t === 'boolean') return v.lit.v;
    if (v.k === 'column') return { field: this.fields.field(v), op: 'eq', value: 'true' };
    throw this.refuse.malformed('a condition must compare a column', { offset: v.at }, 'write column = value');
  }

  private leaf(v: ValueExpr, op: string, value: () => unknown): Where {
    if (v.k !== 'column') throw this.columnExpected(v, `on the left of ${op}`);
    return { field: this.fields.field(v), op, value: value() };
  }

  private lit(v: ValueExpr, where: string): SqlLiteral {
    if (v.k !== 'literal') throw this.refuse.malformed(`a literal is expected ${where}`, { offset: v.at });
    return v.lit;
  }

  private literal(v: ValueExpr, where: string): string {
    return literalValue(this.lit(v, where), v.at, this.refuse);
  }

  private columnExpected(v: ValueExpr, where: string) {
    if (v.k === 'call') {
      return this.refuse.notInSubset(`The function ${v.name}() in WHERE`, { offset: v.at }, 'filter on columns');
    }
    return this.refuse.malformed(`a column is expected ${where}`, { offset: v.at });
  }
}

/** `1 = 0`, `'a' <> 'b'`, `TRUE = FALSE`: decided here. Literals of two kinds are not compared. */
function constantCompare(op: CompareSqlOp, a: SqlLiteral, b: SqlLiteral, at: number, refuse: SqlRefusals): boolean {
  if (op === 'distinct' && (a.t === 'null' || b.t === 'null')) return a.t !== b.t;
  if (a.t === 'null' || b.t === 'null') {
    throw refuse.malformed('a comparison with NULL is never true', { offset: at }, 'write IS NULL or IS NOT NULL');
  }
  let order: number;
  if (a.t === 'number' && b.t === 'number') order = Math.sign(Number(a.v) - Number(b.v));
  else if ((a.t === 'string' && b.t === 'string') || (a.t === 'boolean' && b.t === 'boolean')) {
    order = a.v === b.v ? 0 : a.v < b.v ? -1 : 1;
  } else {
    throw refuse.malformed(`a comparison of a ${a.t} literal with a ${b.t} literal`, { offset: at });
  }
  switch (op) {
    case '=':
      return order === 0;
    case '<>':
    case 'distinct':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}
