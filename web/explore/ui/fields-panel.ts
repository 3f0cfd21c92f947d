/**
 * Columns and JSON fields: each column with its Trino type and origin (GET /v1/topics/{topic}); each JSON field of
 * the payloads with its inferred type and how often it is present (the infer route's sample of the window); and, for
 * the fields with few distinct values, their top values over the window (one aggregation, model/top-values.ts).
 */
import type { JsonNode } from '../model/json-tree.js';
import {
  arrowPath,
  type Candidate,
  lowCardinality,
  marginals,
  topValuesQuery,
  type TopValues,
} from '../model/top-values.js';
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

function table(caption: string, heads: string[], body: HTMLElement): HTMLElement {
  const head = h(
    'thead',
    {},
    h(
      'tr',
      {},
      heads.map((t) => h('th', { scope: 'col', text: t })),
    ),
  );
  return h('table', { class: 'fields-table' }, h('caption', { text: caption }), head, body);
}

function columnRow(c: Column): HTMLElement {
  return h(
    'tr',
    {},
    h('th', { scope: 'row' }, h('code', { text: c.name })),
    h('td', {}, h('code', { text: c.type })),
    h('td', { text: c.origin === 'expansion' ? `expansion of ${c.path ?? ''}` : 'table' }),
  );
}

function fieldRow(f: InferredField): HTMLElement {
  const label = fieldLabel(f);
  return h(
    'tr',
    { 'data-field': label },
    h('th', { scope: 'row' }, h('code', { text: label })),
    h('td', {}, h('code', { text: f.type })),
    h(
      'td',
      { class: 'presence' },
      h('meter', { min: 0, max: 1, value: f.presence, 'aria-label': `${label} present` }),
      ` ${pct(f.presence)}`,
    ),
    h('td', {}, h('code', { text: arrowPath(f.path) ?? '' })),
  );
}

function topField(f: TopValues): HTMLElement {
  const item = (v: TopValues['values'][number]) =>
    h(
      'li',
      {},
      h('span', { class: 'top-value', text: v.value ?? '(none)' }),
      h('meter', { min: 0, max: 1, value: v.share, 'aria-label': `${v.value ?? 'none'} share` }),
      h('span', { class: 'top-count', text: `${formatCount(v.count)} (${pct(v.share)})` }),
    );
  return h(
    'div',
    { class: 'top-field', 'data-field': f.label },
    h('h4', {}, h('code', { text: f.label })),
    h('ul', {}, f.values.map(item)),
  );
}

/** Columns (table or expansion) and JSON fields whose values can be counted: text and booleans. */
function candidatesOf(columns: readonly Column[], fields: readonly InferredField[]): Candidate[] {
  const text = (type: string) => type === 'varchar' || type === 'boolean' || /^varchar\(/.test(type);
  return [
    ...columns.filter((c) => text(c.type)).map((c) => ({ label: c.name, field: c.name, column: c.name, path: [] })),
    ...fields.flatMap((f) => {
      const field = arrowPath(f.path);
      if (!field || !text(f.type)) return [];
      return [{ label: fieldLabel(f), field, column: 'value', path: f.path.replace(/^\$\./, '').split('.') }];
    }),
  ];
}

class FieldsPanel {
  readonly #columnsBody = h('tbody');
  readonly #fieldsBody = h('tbody');
  readonly #fieldsStatus = statusLine();
  readonly #topStatus = statusLine();
  readonly #top = h('div', { class: 'top-values' });
  readonly element = section(
    'fields',
    'Columns and fields',
    table('Columns', ['column', 'Trino type', 'origin'], this.#columnsBody),
    this.#fieldsStatus,
    table(
      'JSON fields of the payloads (sampled)',
      ['field', 'inferred type', 'present in', 'arrow path'],
      this.#fieldsBody,
    ),
    h('h3', { text: 'Top values' }),
    this.#topStatus,
    this.#top,
  );
  #columns: Column[] = [];
  #fields: InferredField[] = [];
  #candidates: Candidate[] = [];
  #inferring: AbortController | undefined;
  #counting: AbortController | undefined;

  setColumns(columns: Column[]): void {
    this.#columns = columns;
    fill(this.#columnsBody, columns.map(columnRow));
  }

  /** Infers the JSON fields of the window's payloads; resolves to them (none on failure). */
  async infer(topic: string, window: TimeWindow): Promise<InferredField[]> {
    this.#inferring?.abort();
    const mine = (this.#inferring = new AbortController());
    this.#fieldsStatus.textContent = 'Sampling payloads…';
    const q = queryString([
      ['since', window.since],
      ['until', window.until],
      ['sample', '1000'],
    ]);
    try {
      const r = await getJson<InferResult>(topicPath(topic, `/schema/infer?${q}`), mine.signal);
      this.#fields = r.fields;
      this.#fieldsStatus.textContent = `${formatCount(r.sampled)} events sampled, ${formatCount(r.json)} with a JSON object payload.`;
      fill(this.#fieldsBody, r.fields.map(fieldRow));
    } catch (err) {
      if (isAbort(err)) return this.#fields;
      this.#fields = [];
      this.#fieldsStatus.textContent = '';
      fill(this.#fieldsBody, h('tr', {}, h('td', { colspan: 4 }, errorBox(messageOf(err)))));
    }
    return this.#fields;
  }

  /** Counts the top values of the window's low-cardinality fields, found among the sample events. */
  async topValues(topic: string, window: TimeWindow | undefined, where: unknown, sample: JsonNode[] | undefined) {
    const found = sample ? lowCardinality(candidatesOf(this.#columns, this.#fields), sample) : [];
    // A sample without these fields (a select that leaves them out) keeps the fields found before.
    if (found.length) this.#candidates = found;
    this.#counting?.abort();
    if (this.#candidates.length === 0) {
      this.#topStatus.textContent = 'No field with few distinct values in the sample events.';
      return this.#top.replaceChildren();
    }
    const mine = (this.#counting = new AbortController());
    this.#topStatus.textContent = 'Counting values…';
    const body = {
      ...topValuesQuery(this.#candidates),
      ...(window ? { since: window.since, until: window.until } : {}),
    };
    try {
      const path = topicPath(topic, '/query');
      const r = await postJson<{ rows: Record<string, unknown>[] }>(
        path,
        where === undefined ? body : { ...body, where },
        mine.signal,
      );
      const m = marginals(this.#candidates, r.rows);
      this.#topStatus.textContent = `Over ${formatCount(m.total)} events of the window${m.approximate ? ' (approximate: many combinations)' : ''}.`;
      fill(this.#top, m.fields.map(topField));
    } catch (err) {
      if (isAbort(err)) return;
      this.#topStatus.textContent = '';
      fill(this.#top, errorBox(messageOf(err)));
    }
  }
}

export type { FieldsPanel };

export function fieldsPanel(): FieldsPanel {
  return new FieldsPanel();
}
