/**
 * Sample events of the window (with the builder's filters and select): a table of the first events, each column a
 * cell, JSON folded to one line and unfolded on demand, bytes as `\x..`. The rows are read as a JSON tree, so big
 * integers keep every digit.
 */
import type { JsonNode } from '../model/json-tree.js';
import { getRows, isAbort, messageOf } from './api.js';
import { h, fill, section, errorBox, statusLine } from './dom.js';
import { foldAll, jsonView, textValue } from './json-view.js';

export const SAMPLE_LIMIT = 20;

function cell(node: JsonNode | undefined): HTMLElement {
  if (node === undefined) return h('td');
  return h('td', {}, node.kind === 'string' ? textValue(node.value) : jsonView(node, 0));
}

export interface Samples {
  element: HTMLElement;
  load(path: string): Promise<JsonNode[] | undefined>;
}

export function samplesPanel(): Samples {
  const status = statusLine();
  const table = h('table', { class: 'events' });
  const tools = h(
    'div',
    { class: 'tools' },
    h('button', { type: 'button', text: 'Unfold all', onclick: () => foldAll(table, true) }),
    h('button', { type: 'button', text: 'Fold all', onclick: () => foldAll(table, false) }),
  );
  const problem = h('div');
  let controller: AbortController | undefined;
  return {
    element: section('samples', 'Sample events', tools, status, problem, h('div', { class: 'scroll-x' }, table)),
    async load(path) {
      controller?.abort();
      const mine = (controller = new AbortController());
      status.textContent = 'Loading events…';
      problem.replaceChildren();
      try {
        const rows = await getRows(path, mine.signal);
        const names = rows[0]?.kind === 'object' ? rows[0].entries.map(([k]) => k) : [];
        const byName = (row: JsonNode, name: string) =>
          row.kind === 'object' ? row.entries.find(([k]) => k === name)?.[1] : undefined;
        fill(
          table,
          h('caption', { class: 'sr-only', text: 'Sample events' }),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              names.map((n) => h('th', { scope: 'col', text: n })),
            ),
          ),
          h(
            'tbody',
            {},
            rows.map((row) =>
              h(
                'tr',
                { class: 'event' },
                names.map((n) => cell(byName(row, n))),
              ),
            ),
          ),
        );
        status.textContent =
          rows.length === 0
            ? 'No events in this window match.'
            : `The first ${rows.length} events of the window${rows.length === SAMPLE_LIMIT ? ' (all of them: Download)' : ''}.`;
        Object.assign(table.dataset, { rows: String(rows.length), path });
        return rows;
      } catch (err) {
        if (isAbort(err)) return undefined;
        status.textContent = '';
        table.replaceChildren();
        fill(problem, errorBox(messageOf(err)));
        return undefined;
      }
    },
  };
}
