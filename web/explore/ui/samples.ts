/**
 * Sample events of the window (with the builder's filters and select): each event's columns, JSON folded or
 * unfolded, bytes as `\x..`. The rows are read as a JSON tree, so big integers keep every digit.
 */
import type { JsonNode } from '../model/json-tree.js';
import { getRows, isAbort, messageOf } from './api.js';
import { h, fill, section, errorBox, statusLine } from './dom.js';
import { foldAll, jsonView, textValue } from './json-view.js';

export const SAMPLE_LIMIT = 20;

function cell(node: JsonNode): HTMLElement {
  if (node.kind === 'string') return textValue(node.value);
  return jsonView(node, 1);
}

function eventView(row: JsonNode, i: number): HTMLElement {
  const entries = row.kind === 'object' ? row.entries : [];
  return h(
    'li',
    { class: 'event' },
    h('h3', { class: 'sr-only', text: `Event ${i + 1}` }),
    h(
      'dl',
      {},
      entries.flatMap(([k, v]) => [h("dt", { text: k }), h("dd", {}, cell(v))]),
    ),
  );
}

export interface Samples {
  element: HTMLElement;
  load(path: string): Promise<JsonNode[] | undefined>;
}

export function samplesPanel(): Samples {
  const status = statusLine();
  const list = h('ol', { class: 'events', 'aria-label': 'Sample events' });
  const tools = h(
    'div',
    { class: 'tools' },
    h('button', { type: 'button', text: 'Unfold all', onclick: () => foldAll(list, true) }),
    h('button', { type: 'button', text: 'Fold all', onclick: () => foldAll(list, false) }),
  );
  const problem = h('div');
  let controller: AbortController | undefined;
  return {
    element: section('samples', 'Sample events', tools, status, problem, list),
    async load(path) {
      controller?.abort();
      const mine = (controller = new AbortController());
      status.textContent = 'Loading events…';
      problem.replaceChildren();
      try {
        const rows = await getRows(path, mine.signal);
        fill(list, rows.map(eventView));
        status.textContent =
          rows.length === 0
            ? 'No events in this window match.'
            : `The first ${rows.length} events of the window${rows.length === SAMPLE_LIMIT ? ' (more in the downloads)' : ''}.`;
        list.dataset.rows = String(rows.length);
        list.dataset.path = path;
        return rows;
      } catch (err) {
        if (isAbort(err)) return undefined;
        status.textContent = '';
        list.replaceChildren();
        fill(problem, errorBox(messageOf(err)));
        return undefined;
      }
    },
  };
}
