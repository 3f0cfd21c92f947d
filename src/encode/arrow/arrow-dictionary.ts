/**
 * A column of a fixed set of strings as an Arrow dictionary: a decoded Avro enum (blob/avro/avro-shape.ts types it
 * `enum(row("A" boolean, ...))`, the field names being its symbols in order). Each batch holds Int32 indices into
 * one dictionary Vector shared by every batch, so the IPC writer sends the symbols once, before the first batch.
 */
import { Dictionary, Int32, makeData, Utf8, vectorFromArray, type Data } from 'apache-arrow';
import { rowFields, typeArg, type TrinoType } from '../../core/trino-types.js';
import { BaseBuilder, grow } from './arrow-columns.js';

export class DictionaryBuilder extends BaseBuilder {
  private indices = new Int32Array(64);
  private readonly index: ReadonlyMap<string, number>;
  private readonly dictionary;

  constructor(symbols: readonly string[]) {
    super(new Dictionary(new Utf8(), new Int32()));
    this.index = new Map(symbols.map((s, i) => [s, i]));
    this.dictionary = vectorFromArray([...symbols], new Utf8());
  }

  protected appendValue(v: unknown, i: number): void {
    const at = this.index.get(String(v));
    // The reader schema's symbols are every value decoding can give; anything else is a defect, never a guess.
    if (at === undefined) throw new RangeError(`not a symbol of the enum: ${String(v)}`);
    if (i >= this.indices.length) this.indices = grow(this.indices, i + 1);
    this.indices[i] = at;
  }

  protected appendNull(i: number): void {
    if (i >= this.indices.length) this.indices = grow(this.indices, i + 1);
    this.indices[i] = 0;
  }

  finish(): Data {
    const indices = this.indices;
    const v = this.takeValidity();
    this.indices = new Int32Array(Math.max(64, v.length));
    return makeData({
      type: this.type,
      ...v,
      data: indices.subarray(0, v.length),
      dictionary: this.dictionary,
    } as never);
  }
}

/** The symbols of an `enum(row("A" boolean, ...))` type. */
export function enumSymbols(type: TrinoType): string[] {
  return rowFields(typeArg(type, 0)).map((f, i) => f.name ?? `_${i}`);
}
