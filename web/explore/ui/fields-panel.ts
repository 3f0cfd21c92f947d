/**
 * Columns and JSON fields: each column with its Trino type and origin (GET /v1/topics/{topic}); each JSON field of
 * the payloads with its inferred type and how often it is present (the infer route's sample of the window); and, for
 * the fields with few distinct values, their top values over the window (one aggregation, model/top-values.ts).
 */
import type { JsonNode } from '../model/json-tree.js';
import { arrowPath, type Candidate, lowCardinality, marginals, topValuesQuery } from '../model/top-values.js';
import type { TimeWindow } from '../model/time-window.js';
import { queryString } from '../model/query-state.js';
import { getJson, isAbort, messageOf, postJson, topicPath } from './api.js';
import { h, fill, section, errorBox, formatCount, statusLine } from './dom.js';

export interface Column {
  name: string;
  type: string;
  origin: 'table' | 'expansion';
  path?: string;
}

export interface InferredField {
  name: string;
  path: string;
  type: string;
  seen: number;
  presence: number;
}

interface InferResult {
  sampled: number;
  json: number;
  fields: InferredField[];
}

/** A JSON field as the page names it: its path in the payload (`customer.address.country`). */
export const fieldLabel = (f: { path: string }) => f.path.replace(/^\$\.?/, '');

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 && x > 0 ? 1 : 0)}%`;

export interface FieldsPanel {
  element: HTMLElement;
  setColumns(columns: Column[]): void;
  /** Infers the JSON fields of the window's payloads; resolves to them (empty for a table, or on failure). */
  infer(topic: string, window: TimeWindow): Promise<InferredField[]>;
  topValues(
    topic: string,
    window: TimeWindow | undefined,
    where: unknown,
    sample: JsonNode[] | undefined,
  ): Promise<void>;
}

export function fieldsPanel(): FieldsPanel {
  const columnsBody = h('tbody');
  const fieldsBody = h('tbody');
  const fieldsStatus = statusLine();
  const topStatus = statusLine();
  const top = h('div', { class: 'top-values' });
  let columns: Column[] = [];
  let fields: InferredField[] = [];
  let candidates: Candidate[] = [];
  let inferring: AbortController | undefined;
  let counting: AbortController | undefined;

  const table = (caption: string, heads: string[], body: HTMLElement) =>
    h(
      'table',
      { class: 'fields-table' },
      h('caption', { text: caption }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          heads.map((t) => h('th', { scope: 'col', text: t })),
        ),
      ),
      body,
    );

  const allCandidates = (): Candidate[] => [
    ...columns
      .filter((c) => c.type === 'varchar' || c.type === 'boolean' || /^varchar\(/.test(c.type))
      .map((c) => ({ label: c.name, field: c.name, column: c.name, path: [] })),
    ...fields.flatMap((f) => {
      const field = arrowPath(f.path);
      if (!field || !['varchar', 'boolean'].includes(f.type)) return [];
      return [{ label: fieldLabel(f), field, column: 'value', path: f.path.replace(/^\$\./, '').split('.') }];
    }),
  ];

  return {
    element: section(
      'fields',
      'Columns and fields',
      table('Columns', ['column', 'Trino type', 'origin'], columnsBody),
      fieldsStatus,
      table(
        'JSON fields of the payloads (sampled)',
        ['field', 'inferred type', 'present in', 'arrow path'],
        fieldsBody,
      ),
      h('h3', { text: 'Top values' }),
      topStatus,
      top,
    ),
    setColumns(next) {
      columns = next;
      fill(
        columnsBody,
        next.map((c) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, h('code', { text: c.name })),
            h('td', {}, h('code', { text: c.type })),
            h('td', { text: c.origin === 'expansion' ? `expansion of ${c.path ?? ''}` : 'table' }),
          ),
        ),
      );
    },
    async infer(topic, window) {
      inferring?.abort();
      const mine = (inferring = new AbortController());
      fieldsStatus.textContent = 'Sampling payloads…';
      const q = queryString([
        ['since', window.since],
        ['until', window.until],
        ['sample', '1000'],
      ]);
      try {
        const r = await getJson<InferResult>(topicPath(topic, `/schema/infer?${q}`), mine.signal);
        fields = r.fields;
        fieldsStatus.textContent = `${formatCount(r.sampled)} events sampled, ${formatCount(r.json)} with a JSON object payload.`;
        fill(
          fieldsBody,
          r.fields.map((f) =>
            h(
              'tr',
              { 'data-field': fieldLabel(f) },
              h('th', { scope: 'row' }, h('code', { text: fieldLabel(f) })),
              h('td', {}, h('code', { text: f.type })),
              h(
                'td',
                { class: 'presence' },
                h('meter', { min: 0, max: 1, value: f.presence, 'aria-label': `${fieldLabel(f)} present` }),
                ` ${pct(f.presence)}`,
              ),
              h('td', {}, h('code', { text: arrowPath(f.path) ?? '' })),
            ),
          ),
        );
        return r.fields;
      } catch (err) {
        if (isAbort(err)) return fields;
        fields = [];
        fieldsStatus.textContent = '';
        fill(fieldsBody, h('tr', {}, h('td', { colspan: 4 }, errorBox(messageOf(err)))));
        return [];
      }
    },
    async topValues(topic, window, where, sample) {
      const found = sample ? lowCardinality(allCandidates(), sample) : [];
      // A sample without these fields (a select that leaves them out) keeps the fields found before.
      if (found.length) candidates = found;
      counting?.abort();
      if (candidates.length === 0) {
        topStatus.textContent = 'No field with few distinct values in the sample events.';
        top.replaceChildren();
        return;
      }
      const mine = (counting = new AbortController());
      topStatus.textContent = 'Counting values…';
      const body = { ...topValuesQuery(candidates), ...(window ? { since: window.since, until: window.until } : {}) };
      try {
        const r = await postJson<{ rows: Record<string, unknown>[] }>(
          topicPath(topic, '/query'),
          where === undefined ? body : { ...body, where },
          mine.signal,
        );
        const m = marginals(candidates, r.rows);
        topStatus.textContent = `Over ${formatCount(m.total)} events of the window${m.approximate ? ' (approximate: many combinations)' : ''}.`;
        fill(
          top,
          m.fields.map((f) =>
            h(
              'div',
              { class: 'top-field', 'data-field': f.label },
              h('h4', {}, h('code', { text: f.label })),
              h(
                'ul',
                {},
                f.values.map((v) =>
                  h(
                    'li',
                    {},
                    h('span', { class: 'top-value', text: v.value ?? '(none)' }),
                    h('meter', { min: 0, max: 1, value: v.share, 'aria-label': `${v.value ?? 'none'} share` }),
                    h('span', { class: 'top-count', text: `${formatCount(v.count)} (${pct(v.share)})` }),
                  ),
                ),
              ),
            ),
          ),
        );
      } catch (err) {
        if (isAbort(err)) return;
        topStatus.textContent = '';
        fill(top, errorBox(messageOf(err)));
      }
    },
  };
}
