/**
 * The hostile corpus: texts that break quoting, parsing, paths and encodings (quotes, comment and statement
 * separators, NUL and control characters, emoji, right-to-left marks, a lone surrogate, Trino's hidden tables and
 * other catalogs' names, wildcards). Every place a request puts text gets each of them, and nothing may give a 5xx,
 * reach a table outside the served schemas, or change a table.
 */
export const HOSTILE = [
  "'",
  "''",
  '"',
  "x' OR '1'='1",
  "'; DROP TABLE orders; --",
  '"; DROP TABLE orders; --',
  'orders"; DELETE FROM "orders',
  '\\',
  "\\'",
  '--',
  '/* */',
  ';',
  '\u0000',
  'a\u0000b',
  '\n',
  '\r\n',
  '\t',
  '😀',
  '\u202e\u0644', // right-to-left override, Arabic
  '\u200d',
  '\ud800', // lone surrogate
  '$partitions',
  'orders$partitions',
  'orders vast.x',
  ' ',
  'a b',
  '%',
  '_',
  '*',
  '(',
  ')',
  ',',
  '.',
  '..',
  "X'00'",
  "U&'\\0041'",
  '${x}',
  'information_schema.tables',
  'system.runtime.queries',
  '-999999999d', // a relative time before the year 1
];
