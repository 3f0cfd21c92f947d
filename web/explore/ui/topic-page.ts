/**
 * `/explore/{topic}`: the window picker, the event-rate chart (drag to narrow), the builder with its live URL, curl,
 * SQL and pushdown, sample events, columns and fields with top values, downloads and the live view. The page's own
 * URL carries the window, filters and select, so a view can be shared.
 */
import { DEFAULT_WINDOW, narrowed, resolveWindow, type TimeWindow } from '../model/time-window.js';
import { eventsPath, followPath, queryParams, queryString, stateFromSearch, whereOf } from '../model/query-state.js';
import { arrowPath } from '../model/top-values.js';
import { getJson, isAbort, messageOf, postJson, topicPath } from './api.js';
import { h, fill, section, errorBox, statusLine, formatCount } from './dom.js';
import { rateChart, type RateChart } from './charts.js';
import { loadRate } from './rate-query.js';
import { windowPicker } from './window-picker.js';
import { builderPanel, type FieldChoice } from './builder.js';
import { queryReport } from './query-report.js';
import { SAMPLE_LIMIT, samplesPanel } from './samples.js';
import { type Column, type InferredField, fieldLabel, fieldsPanel } from './fields-panel.js';
import { downloadsPanel } from './downloads.js';
import { livePanel } from './live.js';

interface TopicDetail {
  name: string;
  kind: 'topic' | 'table';
  columns: Column[];
}

type Change = 'all' | 'window' | 'filters' | 'select';

export function topicPage(main: HTMLElement, topic: string): { reload(): void } {
  const state = stateFromSearch(location.search, DEFAULT_WINDOW);
  let win: TimeWindow = state.window ?? DEFAULT_WINDOW;
  let detail: TopicDetail | undefined;
  let inferred: InferredField[] = [];
  let chart: RateChart | undefined;
  let rateAbort: AbortController | undefined;
  let rows: number | undefined;
  let generation = 0;

  document.title = `${topic}: topicgate explorer`;
  const kind = h('span', { class: 'badge' });
  const picker = windowPicker(win, (w) => {
    win = w;
    refresh('window');
  });
  const chartStatus = statusLine();
  const chartHost = h('div', { class: 'chart-host' });
  const chartPanel = section('rate', 'Event rate', chartStatus, chartHost);
  const builder = builderPanel(state, (filters, select) => {
    const which: Change = select.join(',') !== state.select.join(',') ? 'select' : 'filters';
    state.filters = filters;
    state.select = select;
    refresh(which);
  });
  const report = queryReport();
  const samples = samplesPanel();
  const fields = fieldsPanel();
  const downloads = downloadsPanel();
  const live = livePanel();
  const problem = h('div');

  const layout = () =>
    fill(
      main,
      h(
        'p',
        { class: 'crumbs' },
        h('a', {
          href: `/explore?${queryString([
            ['since', win.since],
            ['until', win.until],
          ])}`,
          text: '← All topics',
        }),
      ),
      h('h1', {}, topic, ' ', kind),
      problem,
      picker.element,
      chartPanel,
      h('div', { class: 'two-columns' }, builder.element, report.element),
      fields.element,
      samples.element,
      h('div', { class: 'two-columns' }, downloads.element, live.element),
    );

  const timeless = () => detail !== undefined && !detail.columns.some((c) => c.name === 'timestamp_broker');
  const current = () => ({ ...state, window: timeless() ? undefined : win });

  async function drawRate(): Promise<void> {
    rateAbort?.abort();
    const mine = (rateAbort = new AbortController());
    const resolved = resolveWindow(win, Date.now());
    if ('problem' in resolved) {
      fill(chartHost, errorBox(resolved.problem));
      return;
    }
    chartStatus.textContent = 'Counting events…';
    try {
      const r = await loadRate(topic, win, resolved, whereOf(state.filters), { signal: mine.signal });
      if (timeless()) return;
      chart?.destroy();
      chart = rateChart(r.series, r.bucket, (from, to) => {
        const w = narrowed(from, to);
        picker.set(w);
        win = w;
        refresh('window');
      });
      rows = r.series.total;
      // What the chart shows, for the browser tests (and anyone reading the page's DOM).
      Object.assign(chart.element.dataset, {
        since: win.since,
        until: win.until,
        bucket: r.bucket.text,
        total: String(rows),
      });
      chart.element.dataset.where = JSON.stringify(whereOf(state.filters) ?? null);
      chartStatus.textContent = `${formatCount(r.series.total)} events, per ${r.bucket.text} (UTC). Drag across the chart to narrow the window.`;
      fill(chartHost, chart.element, r.series.total === 0 ? latestButton() : null);
      updateDownloads();
    } catch (err) {
      if (isAbort(err) || timeless()) return;
      chartStatus.textContent = '';
      fill(chartHost, errorBox(messageOf(err)));
    }
  }

  /** In an empty window: find the newest matching event and show the day before it. */
  function latestButton(): HTMLElement {
    const out = h('p', { class: 'hint' });
    const button = h('button', {
      type: 'button',
      text: 'Show the day before the latest event',
      onclick: async () => {
        try {
          const body = {
            select: [{ fn: 'max', field: 'timestamp_broker', as: 'latest' }],
            where: whereOf(state.filters),
          };
          const r = await postJson<{ rows: { latest: string | null }[] }>(topicPath(topic, '/query'), body);
          const latest = r.rows[0]?.latest;
          if (!latest) return void (out.textContent = 'The topic has no matching events.');
          const end = Date.parse(latest) + 1;
          win = narrowed(end - 86_400_000, end);
          picker.set(win);
          refresh('window');
        } catch (err) {
          fill(out, errorBox(messageOf(err)));
        }
      },
    });
    fill(out, 'No events in this window. ', button);
    return out;
  }

  function updateDownloads(): void {
    const s = current();
    downloads.update({
      topic,
      readPath: (extra) => eventsPath(topic, s, extra),
      sessionBody: {
        ...(s.select.length ? { select: s.select } : {}),
        ...(state.filters.length ? { where: whereOf(state.filters) } : {}),
        ...(s.window ? { since: s.window.since, until: s.window.until } : {}),
      },
      rows,
    });
  }

  function choices(): FieldChoice[] {
    const cols = (detail?.columns ?? []).map((c) => ({ field: c.name, selectItem: c.name, label: c.name }));
    const json = inferred.flatMap((f) => {
      const path = arrowPath(f.path);
      return path ? [{ field: path, selectItem: `${f.name.replace(/\W/g, '_')}:${path}`, label: fieldLabel(f) }] : [];
    });
    return [...cols, ...json];
  }

  /** `drawn`: the chart already asked for (the first load asks before the topic's columns are known). */
  function refresh(change: Change, drawn?: Promise<void>): void {
    const s = current();
    history.replaceState(null, '', `/explore/${encodeURIComponent(topic)}?${queryString(queryParams(s))}`);
    const readPath = eventsPath(topic, s, [['limit', String(SAMPLE_LIMIT)]]);
    const explainPath = eventsPath(topic, s, [
      ['limit', String(SAMPLE_LIMIT)],
      ['explain', 'true'],
    ]);
    const where = whereOf(state.filters);
    let charted: Promise<void> = drawn ?? Promise.resolve();
    if (change !== 'select') {
      if (timeless()) fill(chartHost, h('p', { class: 'hint', text: 'This table has no broker time: no event rate.' }));
      else if (!drawn) charted = drawRate();
    }
    // The chart's query runs alone (two cores serve Trino here: three queries at once take three times as long);
    // the URL and curl are shown at once, the explain and the sample once the chart is drawn.
    report.showUrl(readPath);
    // A later change supersedes this one: what waits for the chart is asked only if none came.
    const mine = ++generation;
    const sampled = charted.then(() => (mine === generation ? samples.load(readPath) : undefined));
    void charted.then(() => (mine === generation ? report.show(readPath, explainPath) : undefined));
    // Sampling a thousand payloads is the heaviest query of the page: it waits for the chart too.
    const infer =
      (change === 'all' || change === 'window') && detail?.kind === 'topic'
        ? charted
            .then(() => fields.infer(topic, win))
            .then((f) => {
              inferred = f;
              builder.setFields(choices());
            })
        : Promise.resolve();
    void Promise.all([sampled, infer]).then(([sample]) => {
      if (mine === generation && (change !== 'select' || sample)) void fields.topValues(topic, s.window, where, sample);
    });
    updateDownloads();
    if (!timeless()) live.setPath(followPath(topic, s));
  }

  async function load(): Promise<void> {
    layout();
    problem.replaceChildren();
    detail = undefined;
    // The chart first: its aggregation starts beside the topic's description, not after it.
    const drawn = drawRate();
    try {
      detail = await getJson<TopicDetail>(topicPath(topic));
    } catch (err) {
      // The API refused or does not know the topic: nothing else of it is shown.
      fill(
        main,
        h('p', { class: 'crumbs' }, h('a', { href: '/explore', text: '← All topics' })),
        h('h1', { text: topic }),
        errorBox(messageOf(err)),
      );
      return;
    }
    kind.textContent = detail.kind;
    fields.setColumns(detail.columns);
    builder.setFields(choices());
    if (timeless()) picker.element.hidden = true;
    refresh('all', timeless() ? undefined : drawn);
  }

  void load();
  return {
    reload: () => {
      live.stop();
      void load();
    },
  };
}
