/**
 * JSON text as a tree that keeps each number's own digits: the API writes BIGINT values beyond 2^53 with every
 * digit, and JSON.parse would round them (9007199254740993 shown as ...992). The sample view folds and unfolds
 * this tree; strings that the API wrote as `\x..` bytes stay as they are.
 */
export type JsonNode =
  | { kind: 'object'; entries: [string, JsonNode][] }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const SPACE = /[ \t\n\r]*/y;

class Reader {
  pos = 0;
  constructor(readonly text: string) {}
  skip(): void {
    SPACE.lastIndex = this.pos;
    SPACE.exec(this.text);
    this.pos = SPACE.lastIndex;
  }
  fail(what: string): never {
    throw new SyntaxError(`JSON: ${what} at ${this.pos}`);
  }
  take(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) return undefined;
    this.pos = re.lastIndex;
    return m[0];
  }
  expect(c: string): void {
    this.skip();
    if (this.text[this.pos] !== c) this.fail(`expected ${c}`);
    this.pos++;
  }
}

function value(r: Reader, depth: number): JsonNode {
  if (depth > 512) r.fail('too deep');
  r.skip();
  const c = r.text[r.pos];
  if (c === '{') {
    r.pos++;
    const entries: [string, JsonNode][] = [];
    r.skip();
    if (r.text[r.pos] === '}') {
      r.pos++;
      return { kind: 'object', entries };
    }
    for (;;) {
      r.skip();
      const key = r.take(STRING) ?? r.fail('expected a key');
      r.expect(':');
      entries.push([JSON.parse(key) as string, value(r, depth + 1)]);
      r.skip();
      const next = r.text[r.pos++];
      if (next === '}') return { kind: 'object', entries };
      if (next !== ',') r.fail('expected , or }');
    }
  }
  if (c === '[') {
    r.pos++;
    const items: JsonNode[] = [];
    r.skip();
    if (r.text[r.pos] === ']') {
      r.pos++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(value(r, depth + 1));
      r.skip();
      const next = r.text[r.pos++];
      if (next === ']') return { kind: 'array', items };
      if (next !== ',') r.fail('expected , or ]');
    }
  }
  if (c === '"') return { kind: 'string', value: JSON.parse(r.take(STRING) ?? r.fail('bad string')) as string };
  for (const [word, node] of WORDS) {
    if (r.text.startsWith(word, r.pos)) {
      r.pos += word.length;
      return node;
    }
  }
  const text = r.take(NUMBER);
  if (text === undefined) r.fail('unexpected character');
  return { kind: 'number', text };
}

const WORDS: [string, JsonNode][] = [
  ['true', { kind: 'boolean', value: true }],
  ['false', { kind: 'boolean', value: false }],
  ['null', { kind: 'null' }],
];

/** Parses one JSON text (throws SyntaxError on anything else). */
export function parseJsonTree(text: string): JsonNode {
  const r = new Reader(text);
  const node = value(r, 0);
  r.skip();
  if (r.pos !== text.length) r.fail('trailing text');
  return node;
}

/** The node as compact JSON text, numbers with their own digits. */
export function jsonText(node: JsonNode): string {
  switch (node.kind) {
    case 'object':
      return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
    case 'array':
      return `[${node.items.map(jsonText).join(',')}]`;
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.text;
    case 'boolean':
      return String(node.value);
    case 'null':
      return 'null';
  }
}

/** A member of an object node (undefined when absent or not an object). */
export function member(node: JsonNode | undefined, name: string): JsonNode | undefined {
  return node?.kind === 'object' ? node.entries.find(([k]) => k === name)?.[1] : undefined;
}

/** Scalar text of a node as the API writes it in text formats (strings bare), for display and counting. */
export function scalarText(node: JsonNode | undefined): string | undefined {
  if (!node) return undefined;
  switch (node.kind) {
    case 'string':
      return node.value;
    case 'number':
      return node.text;
    case 'boolean':
      return String(node.value);
    case 'null':
      return undefined;
    default:
      return jsonText(node);
  }
}
