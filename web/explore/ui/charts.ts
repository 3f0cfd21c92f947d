/**
 * The charts, drawn by uPlot (a small canvas chart library without dependencies, bundled into the page's script):
 * the topic page's event-rate bars, where a drag across the plot narrows the window, and the overview's sparklines.
 * Each chart has a text alternative: a label with the totals, and its counts as a table a keyboard or screen reader
 * can open.
 */
import uPlot from 'uplot';
import type { RateSeries } from '../model/rate-series.js';
import { isoOf, timeLabels } from '../model/time-window.js';
import { h, formatCount } from './dom.js';

const utc = (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');
const seconds = (s: RateSeries) => s.starts.map((t) => t / 1000);

/** Marks when the first chart of the page is drawn (the browser test reads it: pages load in under a second). */
function markDrawn(): void {
  if (performance.getEntriesByName('tg-first-chart').length === 0) performance.mark('tg-first-chart');
}

export interface RateChart {
  element: HTMLElement;
  destroy(): void;
}

/**
 * The rate chart of a window: bars per bucket; `onSelect(from, to)` with the instants a drag across the plot spans.
 */
export function rateChart(
  s: RateSeries,
  bucket: { text: string; ms: number },
  onSelect: (fromMs: number, toMs: number) => void,
): RateChart {
  const plot = h('div', {
    class: 'rate-plot',
    role: 'img',
    'aria-label': `Events per ${bucket.text}: ${formatCount(s.total)} in the window, at most ${formatCount(Math.max(0, ...s.counts))} in one bucket`,
  });
  const element = h('figure', { class: 'rate-chart' }, plot, countsTable(s, bucket.text));
  const width = Math.max(320, (document.querySelector('main')?.clientWidth ?? 900) - 48);
  const opts: uPlot.Options = {
    width,
    height: 220,
    // Room on the right for the last time label, centred on the axis's end.
    padding: [12, 36, 0, 0],
    tzDate: utc,
    legend: { show: false },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
    axes: [
      { stroke: '#444', values: (_u, splits, _i, _space, incr) => timeLabels(splits, incr) },
      { stroke: '#444', size: 60, values: (_u, ticks) => ticks.map((t) => formatCount(t)) },
    ],
    cursor: { drag: { x: true, y: false, setScale: false } },
    series: [
      {},
      {
        label: `events per ${bucket.text}`,
        stroke: '#1f5fa8',
        fill: 'rgba(31, 95, 168, 0.35)',
        paths: uPlot.paths.bars!({ size: [0.9, 60], align: 1 }),
        points: { show: false },
      },
    ],
    hooks: {
      setSelect: [
        (u) => {
          if (u.select.width < 3) return;
          const from = u.posToVal(u.select.left, 'x') * 1000;
          const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          onSelect(from, to);
        },
      ],
      draw: [markDrawn],
    },
  };
  // A bar spans its bucket: the x range runs to the end of the last bucket.
  const last = s.starts.length ? s.starts[s.starts.length - 1]! + bucket.ms : 0;
  const chart = new uPlot(
    opts,
    [
      [...seconds(s), last / 1000],
      [...s.counts, null],
    ],
    plot,
  );
  return { element, destroy: () => chart.destroy() };
}

/** The chart's counts as a table, folded under the chart. */
function countsTable(s: RateSeries, bucketText: string): HTMLElement {
  const rows = s.starts.map((t, i) => h('tr', {}, h('td', { text: isoOf(t) }), h('td', { text: String(s.counts[i]) })));
  return h(
    'details',
    { class: 'counts' },
    h('summary', { text: `Counts per ${bucketText} as a table (${s.starts.length} buckets)` }),
    h(
      'table',
      { class: 'counts-table' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col', text: 'bucket start (UTC)' }), h('th', { scope: 'col', text: 'events' })),
      ),
      h('tbody', {}, rows),
    ),
  );
}

/** A sparkline of a topic's rate: no axes, no cursor. */
export function sparkline(s: RateSeries, label: string): HTMLElement {
  const el = h('div', { class: 'spark', role: 'img', 'aria-label': label });
  const opts: uPlot.Options = {
    width: 180,
    height: 36,
    tzDate: utc,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.2)] } },
    axes: [{ show: false }, { show: false }],
    series: [{}, { stroke: '#1f5fa8', fill: 'rgba(31, 95, 168, 0.25)', width: 1, points: { show: false } }],
    hooks: { draw: [markDrawn] },
  };
  new uPlot(opts, [seconds(s), s.counts], el);
  return el;
}
