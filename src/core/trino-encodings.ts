/** The spooling protocol's encodings the Trino port decodes (X-Trino-Query-Data-Encoding), in order of preference. */
export const TRINO_ENCODINGS = ['json+zstd', 'json+lz4', 'json'] as const;
export type TrinoEncoding = (typeof TRINO_ENCODINGS)[number];
