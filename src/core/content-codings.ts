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
 * The default levels, chosen by measurement (docs/compression.md: wire bytes, rows/s and gateway CPU per row of a
 * 10^6-row read at several levels of each).
 */
export const DEFAULT_LEVELS: CodingLevels = { zstd: 3, br: 4, gzip: 6 };

/** The Parquet column codecs a read may ask for (`format=parquet&compression=`), the first the default. */
export const COLUMN_CODECS = ['zstd', 'snappy', 'none'] as const;
export type ColumnCodec = (typeof COLUMN_CODECS)[number];
