/**
 * A JSON tree, folded and unfolded with <details> (keyboard and screen readers know them), numbers with their own
 * digits, and strings that hold bytes that are not UTF-8 (the API writes them `\x` + hex) marked as bytes.
 */
import { type JsonNode, jsonText } from '../model/json-tree.js';
import { h } from './dom.js';

const BYTES = /^\\x(?:[0-9a-f]{2})*$/i;

/** A string value: bytes written `\x..` are shown as such, marked; other text as text. */
export function textValue(value: string): HTMLElement {
  if (BYTES.test(value) && value.length > 2) {
    return h('code', { class: 'j-bytes', title: 'bytes that are not UTF-8 text, as \\x and hex', text: value });
  }
  return h('span', { class: 'j-str', text: JSON.stringify(value) });
}

function scalar(node: JsonNode): HTMLElement {
  switch (node.kind) {
    case 'string':
      return textValue(node.value);
    case 'number':
      return h('span', { class: 'j-num', text: node.text });
    case 'boolean':
      return h('span', { class: 'j-bool', text: String(node.value) });
    default:
      return h('span', { class: 'j-null', text: 'null' });
  }
}

/** The tree; `openDepth` levels start unfolded. */
export function jsonView(node: JsonNode, openDepth = 1, depth = 0): HTMLElement {
  if (node.kind !== 'object' && node.kind !== 'array') return scalar(node);
  const items: [string | null, JsonNode][] =
    node.kind === 'object' ? node.entries : node.items.map((v) => [null, v] as [null, JsonNode]);
  const [open, close] = node.kind === 'object' ? ['{', '}'] : ['[', ']'];
  if (items.length === 0) return h('span', { class: 'j-empty', text: open + close });
  const count = `${items.length} ${node.kind === 'object' ? (items.length === 1 ? 'key' : 'keys') : items.length === 1 ? 'item' : 'items'}`;
  const preview = jsonText(node);
  return h(
    'details',
    { class: 'j-node', open: depth < openDepth },
    h(
      'summary',
      {},
      h('span', { class: 'j-brace', text: open }),
      h('span', { class: 'j-count', text: ` ${count} ` }),
      h('span', { class: 'j-preview', text: preview.length > 80 ? `${preview.slice(0, 79)}…` : preview }),
      h('span', { class: 'j-brace', text: close }),
    ),
    h(
      'ul',
      { class: 'j-members' },
      items.map(([k, v]) =>
        h(
          'li',
          {},
          k === null ? null : h('span', { class: 'j-key', text: `${JSON.stringify(k)}: ` }),
          jsonView(v, openDepth, depth + 1),
        ),
      ),
    ),
  );
}

/** Opens or closes every fold under `root`. */
export function foldAll(root: Element, open: boolean): void {
  for (const d of root.querySelectorAll<HTMLDetailsElement>('details.j-node')) d.open = open;
}
