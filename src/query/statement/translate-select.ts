/**
 * The select list, GROUP BY and ORDER BY as the body's `select`, `groupBy` and `order` (tree/read-specs.ts): columns
 * (`alias:field` when renamed), the `/query` aggregates, and `date_trunc('hour', timestamp_broker)` /
 * `bucket('15m', timestamp_broker)` as a time bucket of the group. GROUP BY and ORDER BY may name a select item by
 * alias or ordinal, and ORDER BY an aggregate by the output it has in the select list.
 */
import type { AggregateSpec, GroupSpec, OrderSpec, SelectSpec } from '../tree/read-specs.js';
import type { OrderItem, SelectItem, ValueExpr } from './statement-ast.js';
import { shown, shownNumber, type SqlRefusals } from './sql-error.js';
import { aggregateOf, bucketOf, type Bucket, type Fields } from './sql-functions.js';

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** A select item, with the name of its output column (`name`) as the body will name it. */
type Output =
  | { kind: 'star'; alias: null }
  | { kind: 'column'; field: string; alias: string | null; name: string }
  | { kind: 'aggregate'; spec: AggregateSpec; alias: string | null; name: string }
  | { kind: 'bucket'; bucket: Bucket; alias: string | null; name: string };

export class SelectTranslation {
  private readonly outputs: Output[];

  constructor(
    private readonly refuse: SqlRefusals,
    private readonly fields: Fields,
    items: readonly SelectItem[],
  ) {
    this.outputs = items.map((i) => this.output(i));
  }

  private output(item: SelectItem): Output {
    const { expr } = item;
    const alias = item.alias === null ? null : this.alias(item.alias, item.at);
    switch (expr.k) {
      case 'star':
        if (expr.qualifier.length > 0 && !this.fields.isTable(expr.qualifier)) {
          throw this.refuse.malformed(`${shown(expr.qualifier.join('.'))}.* names no table of the statement`, {
            offset: expr.at,
          });
        }
        return { kind: 'star', alias: null };
      case 'column':
        return { kind: 'column', field: this.fields.field(expr), alias, name: alias ?? this.fields.name(expr) };
      case 'call':
        return this.callOutput(expr, alias);
      case 'literal':
        throw this.refuse.notInSubset('A literal in the select list', { offset: expr.at }, 'select columns');
    }
  }

  private callOutput(expr: Extract<ValueExpr, { k: 'call' }>, alias: string | null): Output {
    const bucket = bucketOf(expr, this.refuse, this.fields);
    if (bucket) return { kind: 'bucket', bucket, alias, name: alias ?? 'bucket' };
    const spec = aggregateOf(expr, this.refuse, this.fields);
    const arg = expr.args[0];
    const named = spec.field !== undefined && arg?.k === 'column' ? `${spec.fn}_${this.fields.name(arg)}` : spec.fn;
    return { kind: 'aggregate', spec: alias ? { ...spec, as: alias } : spec, alias, name: alias ?? named };
  }

  private alias(alias: string, at: number): string {
    if (!ALIAS.test(alias)) {
      throw this.refuse.malformed(
        `the alias ${JSON.stringify(alias.slice(0, 60))} is not a plain name`,
        { offset: at },
        'an alias is ASCII letters, digits and _ (at most 128), starting with a letter or _',
      );
    }
    return alias;
  }

  /** The body's select list (none for a lone `*`); time buckets are group keys, not select items. */
  select(): SelectSpec[] | undefined {
    const out: SelectSpec[] = [];
    for (const o of this.outputs) {
      if (o.kind === 'star') out.push('*');
      else if (o.kind === 'aggregate') out.push(o.spec);
      else if (o.kind === 'column') out.push(o.alias ? `${o.alias}:${o.field}` : o.field);
    }
    return out.length === 1 && out[0] === '*' ? undefined : out;
  }

  /** The plain columns of the select list, for SELECT DISTINCT (which groups by them); anything else is refused. */
  distinctKeys(at: number): GroupSpec[] {
    return this.outputs.map((o) => {
      if (o.kind !== 'column') {
        throw this.refuse.notInSubset('SELECT DISTINCT over * or aggregates', { offset: at }, 'list the columns');
      }
      return o.field;
    });
  }

  /** GROUP BY items: a column, an alias or ordinal of a select item, or a time bucket; every selected bucket too. */
  groupBy(items: readonly ValueExpr[]): GroupSpec[] {
    const specs: GroupSpec[] = [];
    const keys = new Set<string>();
    for (const expr of items) {
      const spec = this.groupSpec(expr);
      const key = JSON.stringify(spec);
      if (!keys.has(key)) specs.push(spec);
      keys.add(key);
    }
    for (const o of this.outputs) {
      if (o.kind === 'bucket' && !specs.some((g) => typeof g === 'object' && g.bucket === o.bucket.width)) {
        throw this.refuse.malformed(`the time bucket ${o.name} is not in GROUP BY`, { offset: o.bucket.at }, 'add it');
      }
    }
    return specs;
  }

  private groupSpec(expr: ValueExpr): GroupSpec {
    const o = this.byReference(expr, 'GROUP BY') ?? this.fromExpr(expr, 'GROUP BY');
    if (o.kind === 'column') return o.field;
    if (o.kind === 'bucket') return o.alias ? { bucket: o.bucket.width, as: o.alias } : { bucket: o.bucket.width };
    throw this.refuse.malformed(
      `GROUP BY names ${o.kind === 'star' ? '*' : 'an aggregate'}`,
      { offset: expr.at },
      'group by columns and time buckets',
    );
  }

  /**
   * ORDER BY items: an output by alias, ordinal or equal expression, or a column. A selected column is named by its
   * output; so is any column of a grouped read (its outputs are all a grouped read has); otherwise by reference.
   */
  order(items: readonly OrderItem[], grouped: boolean): OrderSpec[] {
    const byOutput = grouped || this.outputs.some((o) => o.kind === 'aggregate' || o.kind === 'bucket');
    return items.map((item) => {
      const o = this.byReference(item.expr, 'ORDER BY') ?? this.fromExpr(item.expr, 'ORDER BY');
      if (o.kind === 'star') throw this.refuse.malformed('ORDER BY names *', { offset: item.at });
      const selected = o.kind === 'column' ? this.outputs.find((s) => s.kind === 'column' && s.field === o.field) : o;
      const spec: OrderSpec = {
        field: selected && selected.kind !== 'star' ? selected.name : byOutput ? o.name : name(o),
      };
      if (item.dir) spec.dir = item.dir;
      if (item.nulls) spec.nulls = item.nulls;
      return spec;
    });
  }

  /** A select item named by its ordinal (`1`) or alias (`n`), or null. */
  private byReference(expr: ValueExpr, clause: string): Output | null {
    if (expr.k === 'literal' && expr.lit.t === 'number') {
      const o = /^\d{1,6}$/.test(expr.lit.v) ? this.outputs[Number(expr.lit.v) - 1] : undefined;
      if (!o) {
        const n = this.outputs.length;
        throw this.refuse.malformed(`${clause} ${shownNumber(expr.lit.v)}: the select list has ${n} items`, {
          offset: expr.at,
        });
      }
      return o;
    }
    if (expr.k !== 'column' || expr.parts.length !== 1) return null;
    return this.outputs.find((o) => o.alias !== null && o.alias === expr.parts[0]) ?? null;
  }

  /** A column, or an aggregate or time bucket of the same function and arguments as a selected one. */
  private fromExpr(expr: ValueExpr, clause: string): Output {
    if (expr.k === 'column') {
      return { kind: 'column', field: this.fields.field(expr), alias: null, name: this.fields.name(expr) };
    }
    if (expr.k !== 'call') {
      throw this.refuse.malformed(`${clause} takes columns, aliases and select-list ordinals`, { offset: expr.at });
    }
    const bucket = bucketOf(expr, this.refuse, this.fields);
    if (bucket) {
      const same = this.outputs.find((o) => o.kind === 'bucket' && o.bucket.width === bucket.width);
      return same ?? { kind: 'bucket', bucket, alias: null, name: 'bucket' };
    }
    const spec = aggregateOf(expr, this.refuse, this.fields);
    const same = this.outputs.find(
      (o) => o.kind === 'aggregate' && o.spec.fn === spec.fn && o.spec.field === spec.field && o.spec.p === spec.p,
    );
    if (same) return same;
    throw this.refuse.malformed(`${clause} an aggregate that is not selected`, { offset: expr.at }, 'select it');
  }
}

function name(o: Exclude<Output, { kind: 'star' }>): string {
  return o.kind === 'column' ? o.field : o.name;
}
