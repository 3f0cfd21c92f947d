/**
 * The window picker: relative presets and two fields that take what the API takes (ISO-8601 instants or relative
 * times), and buttons that zoom out, zoom in and move the window (the keyboard's way to do what dragging across the
 * chart does).
 */
import { PRESETS, type TimeWindow, resolveWindow, shifted, zoomOut, narrowed } from '../model/time-window.js';
import { h } from './dom.js';

export interface WindowPicker {
  element: HTMLElement;
  set(w: TimeWindow): void;
}

export function windowPicker(initial: TimeWindow, changed: (w: TimeWindow) => void, zoomable = true): WindowPicker {
  const since = h('input', { id: 'since', name: 'since', type: 'text', value: initial.since, size: 26 });
  const until = h('input', { id: 'until', name: 'until', type: 'text', value: initial.until, size: 26 });
  const problem = h('span', { class: 'field-problem', role: 'alert' });
  const apply = (w: TimeWindow) => {
    since.value = w.since;
    until.value = w.until;
    const r = resolveWindow(w, Date.now());
    problem.textContent = 'problem' in r ? r.problem : '';
    if (!('problem' in r)) changed(w);
  };
  const preset = h(
    'select',
    {
      id: 'preset',
      onchange: () => {
        if (preset.value) apply({ since: preset.value, until: 'now' });
      },
    },
    h('option', { value: '', text: 'Relative…' }),
    PRESETS.map((p) => h('option', { value: p.since, text: p.label })),
  );
  const move = (f: (from: number, to: number) => TimeWindow) => () => {
    const r = resolveWindow({ since: since.value, until: until.value }, Date.now());
    if (!('problem' in r)) apply(f(r.from, r.to));
  };
  const buttons = zoomable
    ? h(
        'span',
        { class: 'zoom', role: 'group', 'aria-label': 'Move the window' },
        h('button', { type: 'button', text: '← Earlier', onclick: move((a, b) => shifted(a, b, -1)) }),
        h('button', {
          type: 'button',
          text: 'Zoom in',
          onclick: move((a, b) => narrowed(a + (b - a) / 4, b - (b - a) / 4)),
        }),
        h('button', { type: 'button', text: 'Zoom out', onclick: move(zoomOut) }),
        h('button', { type: 'button', text: 'Later →', onclick: move((a, b) => shifted(a, b, 1)) }),
      )
    : null;
  const form = h(
    'form',
    {
      class: 'window-picker',
      'aria-label': 'Time window',
      onsubmit: (e: Event) => {
        e.preventDefault();
        apply({ since: since.value.trim(), until: until.value.trim() });
      },
    },
    h('label', { for: 'preset', text: 'Window' }),
    preset,
    h('label', { for: 'since', text: 'since' }),
    since,
    h('label', { for: 'until', text: 'until' }),
    until,
    h('button', { type: 'submit', text: 'Apply' }),
    buttons,
    problem,
  );
  return {
    element: form,
    set(w) {
      since.value = w.since;
      until.value = w.until;
      preset.value = '';
    },
  };
}
