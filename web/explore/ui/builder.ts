/**
 * The filter and select builder: filter rows (a column or JSON arrow path, `not`, an operator, a value) and the
 * columns to select. Every change is reported (debounced) so the URL, curl, SQL, pushdown and sample follow it live.
 */
import { OPERATORS, type Filter, type Operator } from '../model/query-state.js';
import { h, fill, section, debounce } from './dom.js';

export interface FieldChoice {
  /** The column or arrow path as the API takes it. */
  field: string;
  /** The select item (`alias:path` for JSON fields). */
  selectItem: string;
  label: string;
}

export interface Builder {
  element: HTMLElement;
  setFields(choices: FieldChoice[]): void;
}

const OP_LABELS: Record<Operator, string> = {
  eq: '= (eq)',
  neq: '≠ (neq)',
  gt: '> (gt)',
  gte: '≥ (gte)',
  lt: '< (lt)',
  lte: '≤ (lte)',
  like: 'like (* wildcard)',
  ilike: 'ilike (any case)',
  match: 'match (regex)',
  in: 'in (a,b,c)',
  is: 'is (null, true…)',
};

let rowIds = 0;

/** One filter's row: its inputs write into `f`, then `changed()`; Remove takes the row away. */
function filterRow(f: Filter, changed: () => void, remove: (f: Filter) => void): HTMLElement {
  const id = `f${++rowIds}`;
  const edit = (apply: () => void) => () => {
    apply();
    changed();
  };
  const field = h('input', { id: `${id}-field`, type: 'text', list: 'field-choices', value: f.field, size: 28 });
  field.addEventListener(
    'input',
    edit(() => (f.field = field.value.trim())),
  );
  const negate = h('input', { id: `${id}-not`, type: 'checkbox', checked: f.negate });
  negate.addEventListener(
    'change',
    edit(() => (f.negate = negate.checked)),
  );
  const op = h(
    'select',
    { id: `${id}-op` },
    OPERATORS.map((o) => h('option', { value: o, text: OP_LABELS[o], selected: o === f.op })),
  );
  op.addEventListener(
    'change',
    edit(() => (f.op = op.value as Operator)),
  );
  const value = h('input', { id: `${id}-value`, type: 'text', value: f.value, size: 22 });
  value.addEventListener(
    'input',
    edit(() => (f.value = value.value)),
  );
  const li: HTMLElement = h(
    'li',
    { class: 'filter' },
    h('label', { for: `${id}-field`, text: 'Field' }),
    field,
    h('label', { class: 'inline', for: `${id}-not` }, negate, ' not'),
    h('label', { class: 'sr-only', for: `${id}-op`, text: 'Operator' }),
    op,
    h('label', { class: 'sr-only', for: `${id}-value`, text: 'Value' }),
    value,
    h('button', {
      type: 'button',
      text: 'Remove',
      'aria-label': 'Remove this filter',
      onclick: () => {
        li.remove();
        remove(f);
      },
    }),
  );
  return li;
}

/** The select checkboxes: one per choice; items of the page's URL that no box names (typed by hand) are kept. */
function selectBoxes(choices: readonly FieldChoice[], select: string[], toggled: (item: string, on: boolean) => void) {
  const boxes = choices.map((c, i) => {
    const box = h('input', { id: `sel-${i}`, type: 'checkbox', checked: select.includes(c.selectItem) });
    box.addEventListener('change', () => toggled(c.selectItem, box.checked));
    return h('label', { class: 'inline', for: `sel-${i}` }, box, ` ${c.label}`);
  });
  const kept = select.filter((s) => !choices.some((c) => c.selectItem === s));
  return [
    h('legend', { text: 'Select (none checked: every column)' }),
    ...boxes,
    ...kept.map((s) => h('span', { class: 'kept', text: ` ${s}` })),
  ];
}

export function builderPanel(
  initial: { filters: Filter[]; select: string[] },
  changed: (filters: Filter[], select: string[]) => void,
): Builder {
  const filters: Filter[] = initial.filters.map((f) => ({ ...f }));
  let select = [...initial.select];
  let choices: FieldChoice[] = [];
  const report = debounce(
    () =>
      changed(
        filters.map((f) => ({ ...f })),
        [...select],
      ),
    350,
  );
  const datalist = h('datalist', { id: 'field-choices' });
  const rows = h('ul', { class: 'filters', 'aria-label': 'Filters' });
  const selectBox = h('fieldset', { class: 'select-box' });
  const remove = (f: Filter) => {
    filters.splice(filters.indexOf(f), 1);
    report();
  };
  const toggled = (item: string, on: boolean) => {
    select = on ? [...select, item] : select.filter((s) => s !== item);
    report();
  };
  const add = () => {
    const f: Filter = { field: '', op: 'eq', value: '', negate: false };
    filters.push(f);
    const li = filterRow(f, report, remove);
    rows.append(li);
    li.querySelector('input')?.focus();
  };
  fill(
    rows,
    filters.map((f) => filterRow(f, report, remove)),
  );
  fill(selectBox, selectBoxes(choices, select, toggled));
  const hint =
    'A field is a column or a JSON arrow path such as value->customer->>country. Values of key and value are text, or \\x and hex bytes.';
  return {
    element: section(
      'builder',
      'Filter and select',
      datalist,
      rows,
      h('button', { type: 'button', text: 'Add filter', onclick: add }),
      selectBox,
      h('p', { class: 'hint', text: hint }),
    ),
    setFields(next) {
      choices = next;
      fill(
        datalist,
        next.map((c) => h('option', { value: c.field })),
      );
      fill(selectBox, selectBoxes(choices, select, toggled));
    },
  };
}
