/** An Avro key's frames, computed before planning (blob/avro/key-framing.ts) and framed in by passes/frame-key-filters.ts. */

/** The framed bytes of each key text a read's filters name: one per key schema version that can hold the text. */
export interface KeyFrames {
  /** The key subject (named in the refusal of an operator framed bytes cannot take). */
  readonly subject: string;
  /** By key text; a text no version can hold has no frames (its comparison matches nothing). */
  readonly frames: ReadonlyMap<string, readonly Buffer[]>;
}
