/**
 * `/explore`: the topics the caller may read (GET /v1/topics answers only those), with kind, events in the window
 * and a sparkline of their rate: one aggregation per topic, a few at a time, for the first SPARK_CAP topics (a
 * button draws the next ones).
 */
import { DEFAULT_WINDOW, resolveWindow, type TimeWindow } from '../model/time-window.js';
import { queryString } from '../model/query-state.js';
import { getJson, messageOf } from './api.js';
import { h, fill, section, errorBox, formatCount, statusLine } from './dom.js';
import { sparkline } from './charts.js';
import { loadRate } from './rate-query.js';
import { windowPicker } from './window-picker.js';

export const SPARK_CAP = 12;
const AT_ONCE = 3;

interface TopicSummary {
  name: string;
  kind: 'topic' | 'table';
  schema: string;
}

function windowFromUrl(): TimeWindow {
  const p = new URLSearchParams(location.search);
  return { since: p.get('since') ?? DEFAULT_WINDOW.since, until: p.get('until') ?? DEFAULT_WINDOW.until };
}

export function overviewPage(main: HTMLElement): { reload(): void } {
  let current = windowFromUrl();
  let generation = 0;
  const status = statusLine();
  const body = h('div', { class: 'topics' });
  const picker = windowPicker(
    current,
    (w) => {
      current = w;
      history.replaceState(
        null,
        '',
        `/explore?${queryString([
          ['since', w.since],
          ['until', w.until],
        ])}`,
      );
      void load();
    },
    false,
  );
  document.title = 'Topics: topicgate explorer';
  fill(
    main,
    h('h1', { text: 'Topics' }),
    h('p', {
      class: 'lead',
      text: 'The topics your credential may read, with their event rate over the window. Pick one to see its fields, events and queries.',
    }),
    picker.element,
    section('topic-list', 'Served topics', status, body),
  );

  async function load(): Promise<void> {
    const mine = ++generation;
    status.textContent = 'Loading topics…';
    let topics: TopicSummary[];
    try {
      topics = (await getJson<{ topics: TopicSummary[] }>('/v1/topics')).topics;
    } catch (err) {
      if (mine !== generation) return;
      status.textContent = '';
      fill(body, errorBox(messageOf(err)));
      return;
    }
    if (mine !== generation) return;
    status.textContent = `${topics.length} topics`;
    const resolved = resolveWindow(current, Date.now());
    const rows = topics.map((t) => topicRow(t));
    fill(
      body,
      h(
        'table',
        { class: 'topic-table' },
        h('caption', {
          class: 'sr-only',
          text: `Topics and their events from ${current.since} until ${current.until}`,
        }),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['topic', 'kind', 'events in window', 'rate'].map((t) => h('th', { scope: 'col', text: t })),
          ),
        ),
        h(
          'tbody',
          {},
          rows.map((r) => r.tr),
        ),
      ),
    );
    if ('problem' in resolved) return;
    const drawable = rows.filter((r) => r.topic.kind === 'topic');
    const draw = async (batch: typeof drawable) => {
      const queue = [...batch];
      // The first sparkline alone, so it is drawn as soon as one query can answer; then a few at a time.
      await queue.shift()?.draw(resolved);
      const worker = async () => {
        for (let r = queue.shift(); r && mine === generation; r = queue.shift()) await r.draw(resolved);
      };
      await Promise.all(Array.from({ length: AT_ONCE }, worker));
    };
    await draw(drawable.slice(0, SPARK_CAP));
    let rest = drawable.slice(SPARK_CAP);
    if (rest.length && mine === generation) {
      const more = h('button', {
        type: 'button',
        text: `Draw the rate of ${rest.length} more topics`,
        onclick: () => {
          more.remove();
          const next = rest;
          rest = [];
          void draw(next);
        },
      });
      body.append(more);
    }
  }

  function topicRow(t: TopicSummary) {
    const size = h('td', { class: 'num', text: t.kind === 'topic' ? '…' : '—' });
    const rate = h('td', { class: 'rate' });
    const href = `/explore/${encodeURIComponent(t.name)}?${queryString([
      ['since', current.since],
      ['until', current.until],
    ])}`;
    const tr = h(
      'tr',
      { 'data-topic': t.name },
      h('th', { scope: 'row' }, h('a', { href, text: t.name })),
      h('td', { text: t.kind }),
      size,
      rate,
    );
    return {
      topic: t,
      tr,
      async draw(resolved: { from: number; to: number }) {
        try {
          const { series } = await loadRate(t.name, current, resolved, undefined, { maxBuckets: 48 });
          size.textContent = formatCount(series.total);
          fill(rate, sparkline(series, `${t.name}: ${formatCount(series.total)} events in the window`));
        } catch (err) {
          size.textContent = '—';
          fill(rate, h('span', { class: 'error small', text: messageOf(err) }));
        }
      },
    };
  }

  void load();
  return { reload: () => void load() };
}
