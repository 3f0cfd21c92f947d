import { makeData, type Data, type List, type Map_, type Struct } from 'apache-arrow';
import { BaseBuilder, grow, type ColumnBuilder } from './arrow-columns.js';

/** List and map columns: value offsets into child columns, one per parent slot (null slots repeat the offset). */
abstract class OffsetsBuilder extends BaseBuilder {
  private offsets = new Int32Array(65);
  /** Child entries appended so far in this batch. */
  protected count = 0;
  protected appendNull(i: number): void {
    this.setOffset(i);
  }
  protected setOffset(i: number): void {
    if (i + 1 >= this.offsets.length) this.offsets = grow(this.offsets, i + 2);
    this.offsets[i + 1] = this.count;
  }
  /** This batch's offsets (for `length` slots), and a fresh start for the next batch. */
  protected takeOffsets(length: number): Int32Array {
    const offsets = this.offsets.subarray(0, length + 1);
    this.offsets = new Int32Array(65);
    this.count = 0;
    return offsets;
  }
}

/** array(T) -> List<T>: offsets into one child column holding every element of the batch. */
export class ListBuilder extends OffsetsBuilder {
  constructor(
    type: List,
    /** The builder of the elements. */
    readonly child: ColumnBuilder,
  ) {
    super(type);
  }
  /** Closes a list whose `n` elements were appended to `child` by the caller. */
  appendList(n: number): void {
    this.count += n;
    this.setOffset(this.nextValid());
  }
  protected appendValue(v: unknown, i: number): void {
    if (!Array.isArray(v)) throw new TypeError(`expected an array, got ${typeof v}`);
    for (const x of v) this.child.append(x);
    this.count += v.length;
    this.setOffset(i);
  }
  finish(): Data {
    const v = this.takeValidity();
    return makeData({
      type: this.type as List,
      ...v,
      valueOffsets: this.takeOffsets(v.length),
      child: this.child.finish(),
    });
  }
}

/** row(...) -> Struct: Trino sends a row as an array of field values in field order. */
export class StructBuilder extends BaseBuilder {
  constructor(
    type: Struct,
    /** The builders of the fields, in field order. */
    readonly children: readonly ColumnBuilder[],
  ) {
    super(type);
  }
  /** Marks a struct valid whose fields were each appended to `children` by the caller. */
  appendStruct(): void {
    this.nextValid();
  }
  protected appendValue(v: unknown): void {
    if (!Array.isArray(v)) throw new TypeError(`expected a row (array), got ${typeof v}`);
    for (let i = 0; i < this.children.length; i++) this.children[i]!.append(v[i]);
  }
  protected appendNull(): void {
    // Children of a null struct still need a slot each (Arrow lays children out per parent slot).
    for (const child of this.children) child.append(null);
  }
  finish(): Data {
    const v = this.takeValidity();
    return makeData({ type: this.type as Struct, ...v, children: this.children.map((c) => c.finish()) });
  }
}

/**
 * map(K, V) -> Map_<K, V>: Trino sends a map as a JSON object, so keys arrive as strings (`"1"` for a bigint
 * key); the key builder converts them like any value of the key type.
 */
export class MapBuilder extends OffsetsBuilder {
  constructor(
    type: Map_,
    private readonly keys: ColumnBuilder,
    private readonly values: ColumnBuilder,
  ) {
    super(type);
  }
  protected appendValue(v: unknown, i: number): void {
    if (typeof v !== 'object' || v === null) throw new TypeError(`expected a map (object), got ${typeof v}`);
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
    for (const [k, x] of entries) {
      this.keys.append(k);
      this.values.append(x);
    }
    this.count += entries.length;
    this.setOffset(i);
  }
  finish(): Data {
    const v = this.takeValidity();
    const type = this.type as Map_;
    const entries = makeData({
      type: type.childType,
      length: this.count,
      nullCount: 0,
      children: [this.keys.finish(), this.values.finish()],
    });
    return makeData({ type, ...v, valueOffsets: this.takeOffsets(v.length), child: entries });
  }
}
