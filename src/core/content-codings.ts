/**
 * How a read's bytes are compressed (API.md "Compression on the wire"): the HTTP content codings of the wire, in the
 * server's order of preference when a client accepts several equally, with each one's levels; and Parquet's
 * column codecs, which the request names.
 */
export const CONTENT_CODINGS = ['zstd', 'br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** A level per coding: what TOPICGATE_COMPRESSION_LEVEL sets. */
export type CodingLevels = Readonly<Record<ContentCoding, number>>;

/** The levels each coding's compressor takes (zstd's negative "fast" levels are left out). */
export const LEVEL_RANGES = {
  zstd: { min: 1, max: 22 },
  br: { min: 0, max: 11 },
  gzip: { min: 1, max: 9 },
} as const satisfies Record<ContentCoding, { min: number; max: number }>;

/**
 * The default levels, chosen by measurement (docs/compression.md: wire bytes and gateway CPU per row of a 10^6-row
 * NDJSON read at several levels of each): each coding's knee, past which a level costs much more CPU for few bytes.
 * zstd 3 sends what zstd 1 sends for the same CPU, and 6 saves 8% of the bytes for 43% more CPU; br 6 sends a third
 * of br 4's bytes for 32% more CPU (br 1 to 4 saves bytes and CPU); gzip 6 saves 15% of gzip 1's bytes for 13% more
 * CPU, and 9 only 3.5% more for 18% more.
 */
export const DEFAULT_LEVELS: CodingLevels = { zstd: 3, br: 6, gzip: 6 };

/** The Parquet column codecs a read may ask for (`format=parquet&compression=`), the first the default. */
export const COLUMN_CODECS = ['zstd', 'snappy', 'none'] as const;
export type ColumnCodec = (typeof COLUMN_CODECS)[number];
