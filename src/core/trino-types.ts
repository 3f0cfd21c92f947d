/**
 * Trino type text -> a small tree, the way Trino's own TypeSignature sees it: a base name plus parameters that
 * are numbers (`decimal(12,2)`), types (`array(bigint)`) or named types (row fields, `row(key varchar)`).
 * Base names of Trino's built-in types are lowercased (type names are case-insensitive in Trino); any other base
 * (`HyperLogLog`, a plugin's type) is kept verbatim, so an unknown type never fails a request: only malformed
 * text throws.
 */

export type TrinoTypeArg =
  | { readonly kind: 'long'; readonly value: number }
  | { readonly kind: 'type'; readonly type: TrinoType; readonly name?: string };

export interface TrinoType {
  /** e.g. `varchar`, `array`, `timestamp with time zone`, `interval day to second`. */
  readonly base: string;
  readonly args: readonly TrinoTypeArg[];
}

/** A row field; `name` is null for an anonymous field (`row(bigint, varchar)`). */
export interface TrinoRowField {
  readonly name: string | null;
  readonly type: TrinoType;
}

/** Thrown for text that is not a type at all (unbalanced parentheses, empty parameter, trailing text...). */
export class TrinoTypeSyntaxError extends Error {
  constructor(text: string, at: number, why: string) {
    super(`Malformed Trino type ${JSON.stringify(text)} at ${at}: ${why}`);
    this.name = 'TrinoTypeSyntaxError';
  }
}

/** Base names of Trino's built-in types, as Trino writes them in result column types. */
export const TRINO_BASES = [
  'boolean',
  'tinyint',
  'smallint',
  'integer',
  'bigint',
  'real',
  'double',
  'decimal',
  'varchar',
  'char',
  'varbinary',
  'json',
  'date',
  'time',
  'time with time zone',
  'timestamp',
  'timestamp with time zone',
  'interval day to second',
  'interval year to month',
  'array',
  'map',
  'row',
  'uuid',
  'ipaddress',
  'unknown',
] as const;

export type TrinoBase = (typeof TRINO_BASES)[number];

const KNOWN_BASES: ReadonlySet<string> = new Set(TRINO_BASES);

/** The base as a built-in type name, or null for a type Trino plugins add (`HyperLogLog`, `Geometry`, ...). */
export function knownBase(type: TrinoType): TrinoBase | null {
  return KNOWN_BASES.has(type.base) ? (type.base as TrinoBase) : null;
}

// Spellings Trino's parser accepts for the same type; the tree always carries the canonical one.
const ALIASES: Readonly<Record<string, string>> = {
  int: 'integer',
  'double precision': 'double',
  'timestamp without time zone': 'timestamp',
  'time without time zone': 'time',
};

// Words that continue a multi-word type name. In `row(timestamp with time zone)` the first word is a type, not a
// field name, because the next word continues the type's name (Trino's grammar resolves it the same way).
const CONTINUES: Readonly<Record<string, ReadonlySet<string>>> = {
  timestamp: new Set(['with', 'without']),
  time: new Set(['with', 'without']),
  double: new Set(['precision']),
  interval: new Set(['day', 'year', 'month', 'hour', 'minute', 'second']),
};

/** Parses Trino type text, e.g. `array(row(key varchar, value varbinary))`. Throws only on malformed text. */
export function parseTrinoType(text: string): TrinoType {
  const p = new Parser(text);
  const type = p.type();
  p.ws();
  if (!p.done()) p.fail('unexpected text after the type');
  return type;
}

/** The type parameter at `index` (the element of an array, key/value of a map); throws if it is not a type. */
export function typeArg(type: TrinoType, index: number): TrinoType {
  const arg = type.args[index];
  if (arg?.kind !== 'type') throw new TypeError(`${formatTrinoType(type)} has no type parameter ${index}`);
  return arg.type;
}

/** The numeric parameter at `index` (precision, scale, length), or `fallback` when absent. */
export function longArg(type: TrinoType, index: number, fallback: number): number {
  const arg = type.args[index];
  return arg?.kind === 'long' ? arg.value : fallback;
}

/** The fields of a `row` type, in order. */
export function rowFields(type: TrinoType): TrinoRowField[] {
  return type.args.map((a, i) => {
    if (a.kind !== 'type') throw new TypeError(`row field ${i} of ${formatTrinoType(type)} is not a type`);
    return { name: a.name ?? null, type: a.type };
  });
}

/**
 * Renders a tree back to Trino's canonical text (`timestamp(3) with time zone`, `row("my field" bigint)`). The
 * symbols of `enum(row("A" boolean, ...))`, the spelling of a decoded Avro enum (blob/avro/avro-shape.ts), are
 * always quoted, as that spelling writes them.
 */
export function formatTrinoType(type: TrinoType, quoteNames = false): string {
  if (type.args.length === 0) return type.base;
  const args = type.args
    .map((a) =>
      a.kind === 'long'
        ? String(a.value)
        : (a.name === undefined ? '' : quoteField(a.name, quoteNames) + ' ') +
          formatTrinoType(a.type, type.base === 'enum'),
    )
    // Trino's own spelling: `decimal(12,2)` but `map(varchar, bigint)`, `row(a bigint, b double)`.
    .join(type.args.every((a) => a.kind === 'long') ? ',' : ', ');
  // Trino writes the parameters of `timestamp(3) with time zone` after the first word.
  const space = type.base.indexOf(' ');
  if (space < 0) return `${type.base}(${args})`;
  return `${type.base.slice(0, space)}(${args})${type.base.slice(space)}`;
}

function quoteField(name: string, always: boolean): string {
  return !always && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function canonicalBase(words: string[]): string {
  const joined = words.join(' ');
  const lower = joined.toLowerCase();
  const aliased = ALIASES[lower] ?? lower;
  return KNOWN_BASES.has(aliased) ? aliased : joined;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }
  fail(why: string): never {
    throw new TrinoTypeSyntaxError(this.s, this.i, why);
  }
  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  private peek(): string {
    return this.s[this.i] ?? '';
  }
  private atWord(): boolean {
    const c = this.peek();
    return c !== '' && !/[\s(),"]/.test(c);
  }
  private word(): string {
    const start = this.i;
    while (this.atWord()) this.i++;
    if (this.i === start) this.fail('expected a name');
    return this.s.slice(start, this.i);
  }

  type(): TrinoType {
    this.ws();
    const words = [this.word()];
    this.moreWords(words);
    let args: TrinoTypeArg[] = [];
    if (this.peek() === '(') {
      args = this.args(canonicalBase(words) === 'row');
      this.moreWords(words); // `timestamp(3) with time zone`
    }
    if (words.length === 1 && /^\d+$/.test(words[0]!)) this.fail('expected a type, found a number');
    return { base: canonicalBase(words), args };
  }

  private moreWords(words: string[]): void {
    for (;;) {
      const save = this.i;
      this.ws();
      if (!this.atWord()) return void (this.i = save);
      words.push(this.word());
    }
  }

  private args(isRow: boolean): TrinoTypeArg[] {
    this.i++; // '('
    const args: TrinoTypeArg[] = [];
    for (;;) {
      this.ws();
      args.push(isRow ? this.field() : this.arg());
      this.ws();
      const c = this.peek();
      this.i++;
      if (c === ')') return args;
      if (c !== ',') this.fail(c === '' ? 'missing )' : `unexpected ${JSON.stringify(c)}`);
    }
  }

  private arg(): TrinoTypeArg {
    const m = /^\d+/.exec(this.s.slice(this.i));
    if (m && !/[^\s,)]/.test(this.s[this.i + m[0].length] ?? ')')) {
      this.i += m[0].length;
      return { kind: 'long', value: Number(m[0]) };
    }
    return { kind: 'type', type: this.type() };
  }

  private field(): TrinoTypeArg {
    if (this.peek() === '"') return { kind: 'type', name: this.quoted(), type: this.type() };
    const save = this.i;
    const first = this.word();
    const afterFirst = this.i;
    this.ws();
    if (this.i > afterFirst && this.atWord()) {
      const second = this.s
        .slice(this.i)
        .match(/^[^\s(),"]+/)![0]
        .toLowerCase();
      if (!CONTINUES[first.toLowerCase()]?.has(second)) return { kind: 'type', name: first, type: this.type() };
    }
    this.i = save;
    return { kind: 'type', type: this.type() };
  }

  private quoted(): string {
    let out = '';
    for (this.i++; ;) {
      const end = this.s.indexOf('"', this.i);
      if (end < 0) this.fail('unterminated quoted field name');
      out += this.s.slice(this.i, end);
      this.i = end + 1;
      if (this.peek() !== '"') return out;
      out += '"'; // "" inside a quoted name is one "
      this.i++;
    }
  }
}
