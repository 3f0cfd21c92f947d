/** The case tables of the SQL text tests, shared by the unit test and the round trip through the real Trino. */

/**
 * Hostile strings with the exact varchar literal each must render to. Printable ASCII stays a plain literal
 * (quotes doubled, backslash inert); anything else switches to U&'' with `\` escapes (and `\\` for a backslash).
 */
export const STRING_CASES: [label: string, input: string, sql: string][] = [
  ['empty', '', "''"],
  ['plain', 'orders', "'orders'"],
  ['single quote', "it's", "'it''s'"],
  ['only quotes', "''", "''''''"],
  ['quote at the end', "abc'", "'abc'''"],
  ['double quote', 'a"b', `'a"b'`],
  ['backslash (inert in a plain literal)', 'back\\slash', "'back\\slash'"],
  ['backslash then quote', "\\'", "'\\'''"],
  ['text that looks like a U& escape', '\\+01f680', "'\\+01f680'"],
  ['statement break-out', "x'; DROP TABLE t; --", "'x''; DROP TABLE t; --'"],
  ['line comment', '-- not a comment', "'-- not a comment'"],
  ['block comment', '/* c */', "'/* c */'"],
  ['semicolons', ';;', "';;'"],
  ['dollar and spaces', ' $ 1 $ ', "' $ 1 $ '"],
  ['newline', 'line\nbreak', "U&'line\\000abreak'"],
  ['CR LF', '\r\n', "U&'\\000d\\000a'"],
  ['tab', 'tab\there', "U&'tab\\0009here'"],
  ['control char', 'a\u0001b', "U&'a\\0001b'"],
  ['DEL', '\u007f', "U&'\\007f'"],
  ['latin-1', 'é', "U&'\\00e9'"],
  ['non-ASCII with quote and backslash', "é\\'", "U&'\\00e9\\\\'''"],
  ['non-ASCII with a fake escape', 'é\\+01f680', "U&'\\00e9\\\\+01f680'"],
  ['emoji (non-BMP)', 'rocket 🚀', "U&'rocket \\+01f680'"],
  ['right-to-left mark', 'rtl\u200fmark', "U&'rtl\\200fmark'"],
  ['right-to-left override', '\u202Eevil', "U&'\\202eevil'"],
  ['zero-width joiner sequence', 'zwj👩\u200d💻', "U&'zwj\\+01f469\\200d\\+01f4bb'"],
  ['byte order mark', '\ufeffx', "U&'\\feffx'"],
  ['line separator', 'a\u2028b', "U&'a\\2028b'"],
  ['highest code point', '\u{10ffff}', "U&'\\+10ffff'"],
  ['CJK with quote', "日本'語", "U&'\\65e5\\672c''\\8a9e'"],
];

/** Strings no literal may carry: NUL (Trino's SQL text cannot hold it) and lone UTF-16 surrogates. */
export const UNRENDERABLE: [label: string, input: string][] = [
  ['NUL', 'a\u0000b'],
  ['NUL alone', '\u0000'],
  ['lone high surrogate', '\ud83d'],
  ['lone low surrogate', 'x\ude80y'],
  ['surrogates in the wrong order', '\ude80\ud83d'],
  ['NUL after non-ASCII', 'é\u0000'],
];

/** Keys with the exact path literal: each key bracketed and JSONPath-escaped, then the whole SQL-escaped. */
export const PATH_CASES: [keys: (string | number)[], sql: string][] = [
  [[], "'$'"],
  [['a'], `'$["a"]'`],
  [['a', 'b'], `'$["a"]["b"]'`],
  [['a.b'], `'$["a.b"]'`],
  [['a.b', 'we"ird key'], `'$["a.b"]["we\\"ird key"]'`],
  [['items', 1, 'sku'], `'$["items"][1]["sku"]'`],
  [["it's"], `'$["it''s"]'`],
  [['back\\slash'], `'$["back\\\\slash"]'`],
  [['\\"'], `'$["\\\\\\""]'`],
  [['"'], `'$["\\""]'`],
  [['x[0]'], `'$["x[0]"]'`],
  [[']'], `'$["]"]'`],
  [['$'], `'$["$"]'`],
  [['*'], `'$["*"]'`],
  [[''], `'$[""]'`],
  [[' sp ace '], `'$[" sp ace "]'`],
  [["'); DROP TABLE t; --"], `'$["''); DROP TABLE t; --"]'`],
  [['🚀 ü'], `U&'$["\\+01f680 \\00fc"]'`],
  [['rtl\u200f'], `U&'$["rtl\\200f"]'`],
  [['new\nline'], `U&'$["new\\000aline"]'`],
];
