/**
 * The topic page's event-rate panel: one aggregation over the window (with the builder's filters), drawn as bars;
 * a drag across them narrows the window; an empty window offers the day before the latest matching event.
 */
import type { Filter } from '../model/query-state.js';
import { whereOf } from '../model/query-state.js';
import { narrowed, resolveWindow, type TimeWindow } from '../model/time-window.js';
import { isAbort, messageOf, postJson, topicPath } from './api.js';
import { rateChart, type RateChart } from './charts.js';
import { h, fill, section, errorBox, statusLine, formatCount } from './dom.js';
import { loadRate } from './rate-query.js';
import type { StartedRate } from './first-requests.js';

export interface RateHooks {
  /** The window the user picked on the chart (a drag, or the day before the latest event). */
  picked(w: TimeWindow): void;
  /** True when the answer is no longer wanted (the topic turned out to have no broker time). */
  ignored(): boolean;
  /** After a chart is drawn: the events it counted. */
  drawn(total: number): void;
}

export class RatePanel {
  readonly #topic: string;
  readonly #hooks: RateHooks;
  readonly #status = statusLine();
  readonly #host = h('div', { class: 'chart-host' });
  readonly element = section('rate', 'Event rate', this.#status, this.#host);
  #chart: RateChart | undefined;
  #abort: AbortController | undefined;

  constructor(topic: string, hooks: RateHooks) {
    this.#topic = topic;
    this.#hooks = hooks;
  }

  /** A note instead of a chart. */
  note(text: string): void {
    this.#abort?.abort();
    this.#status.textContent = '';
    fill(this.#host, h('p', { class: 'hint', text }));
  }

  /**
   * Counts and draws the window; resolves when drawn (or failed, or superseded). `started`: the same aggregation,
   * already asked for (the page's first, started from its URL).
   */
  async draw(win: TimeWindow, filters: readonly Filter[], started?: StartedRate): Promise<void> {
    this.#abort?.abort();
    const mine = (this.#abort = started?.abort ?? new AbortController());
    const resolved = resolveWindow(win, Date.now());
    if ('problem' in resolved) return void fill(this.#host, errorBox(resolved.problem));
    this.#status.textContent = 'Counting events…';
    const where = whereOf(filters);
    try {
      const r = await (started?.rate ?? loadRate(this.#topic, win, resolved, where, { signal: mine.signal }));
      if (this.#hooks.ignored()) return;
      this.#chart?.destroy();
      const chart = (this.#chart = rateChart(r.series, r.bucket, (from, to) => this.#hooks.picked(narrowed(from, to))));
      const total = r.series.total;
      // What the chart shows, for the browser tests (and anyone reading the page's DOM).
      Object.assign(chart.element.dataset, {
        since: win.since,
        until: win.until,
        bucket: r.bucket.text,
        total: String(total),
        where: JSON.stringify(where ?? null),
      });
      this.#status.textContent = `${formatCount(total)} events, per ${r.bucket.text} (UTC). Drag across the chart to narrow the window.`;
      fill(this.#host, chart.element, total === 0 ? this.#latestButton(filters) : null);
      this.#hooks.drawn(total);
    } catch (err) {
      if (isAbort(err) || this.#hooks.ignored()) return;
      this.#status.textContent = '';
      fill(this.#host, errorBox(messageOf(err)));
    }
  }

  /** In an empty window: find the newest matching event and offer the day before it. */
  #latestButton(filters: readonly Filter[]): HTMLElement {
    const out = h('p', { class: 'hint' });
    const find = async () => {
      try {
        const body = { select: [{ fn: 'max', field: 'timestamp_broker', as: 'latest' }], where: whereOf(filters) };
        const r = await postJson<{ rows: { latest: string | null }[] }>(topicPath(this.#topic, '/query'), body);
        const latest = r.rows[0]?.latest;
        if (!latest) return void (out.textContent = 'The topic has no matching events.');
        const end = Date.parse(latest) + 1;
        this.#hooks.picked(narrowed(end - 86_400_000, end));
      } catch (err) {
        fill(out, errorBox(messageOf(err)));
      }
    };
    const button = h('button', { type: 'button', text: 'Show the day before the latest event', onclick: find });
    fill(out, 'No events in this window. ', button);
    return out;
  }
}
