/**
 * `/explore/{topic}`: the window picker, the event-rate chart (drag to narrow), the builder with its live URL, curl,
 * SQL and pushdown, columns and fields with top values, sample events, downloads and the live view. The page's own
 * URL carries the window, filters and select, so a view can be shared.
 */
import { DEFAULT_WINDOW, type TimeWindow } from '../model/time-window.js';
import {
  type QueryState,
  eventsPath,
  followPath,
  queryParams,
  queryString,
  stateFromSearch,
  whereOf,
} from '../model/query-state.js';
import { arrowPath } from '../model/top-values.js';
import { getJson, messageOf, topicPath } from './api.js';
import { h, fill, errorBox } from './dom.js';
import { windowPicker, type WindowPicker } from './window-picker.js';
import { type Builder, builderPanel, type FieldChoice } from './builder.js';
import { queryReport } from './query-report.js';
import { SAMPLE_LIMIT, samplesPanel } from './samples.js';
import { type Column, type InferredField, fieldLabel, fieldsPanel } from './fields-panel.js';
import { downloadsPanel } from './downloads.js';
import { livePanel } from './live.js';
import { RatePanel } from './rate-panel.js';
import type { StartedRate } from './first-requests.js';

interface TopicDetail {
  name: string;
  kind: 'topic' | 'table';
  columns: Column[];
}

type Change = 'all' | 'window' | 'filters' | 'select';

class TopicPage {
  readonly #main: HTMLElement;
  readonly #topic: string;
  readonly #state: QueryState = stateFromSearch(location.search, DEFAULT_WINDOW);
  #win: TimeWindow = this.#state.window ?? DEFAULT_WINDOW;
  #detail: TopicDetail | undefined;
  #inferred: InferredField[] = [];
  #rows: number | undefined;
  #generation = 0;
  readonly #kind = h('span', { class: 'badge' });
  readonly #picker: WindowPicker;
  readonly #rate: RatePanel;
  readonly #builder: Builder;
  readonly #report = queryReport();
  readonly #samples = samplesPanel();
  readonly #fields = fieldsPanel();
  readonly #downloads = downloadsPanel();
  readonly #live = livePanel();
  /** The chart's aggregation the script started from the URL before this page's code loaded (first load only). */
  #started: StartedRate | undefined;

  constructor(main: HTMLElement, topic: string, started?: StartedRate) {
    this.#main = main;
    this.#topic = topic;
    this.#started = started;
    document.title = `${topic}: topicgate explorer`;
    this.#picker = windowPicker(this.#win, (w) => this.#setWindow(w, false));
    this.#rate = new RatePanel(topic, {
      picked: (w) => this.#setWindow(w, true),
      ignored: () => this.#timeless(),
      drawn: (total) => {
        this.#rows = total;
        this.#updateDownloads();
      },
    });
    this.#builder = builderPanel(this.#state, (filters, select) => {
      const which: Change = select.join(',') !== this.#state.select.join(',') ? 'select' : 'filters';
      this.#state.filters = filters;
      this.#state.select = select;
      this.#refresh(which);
    });
  }

  reload(): void {
    this.#live.stop();
    void this.load();
  }

  async load(): Promise<void> {
    this.#layout();
    this.#detail = undefined;
    // The chart first: its aggregation starts beside the topic's description, not after it.
    const drawn = this.#rate.draw(this.#win, this.#state.filters, this.#started);
    this.#started = undefined;
    try {
      this.#detail = await getJson<TopicDetail>(topicPath(this.#topic));
    } catch (err) {
      // The API refused or does not know the topic: nothing else of it is shown.
      const back = h('p', { class: 'crumbs' }, h('a', { href: '/explore', text: '← All topics' }));
      return fill(this.#main, back, h('h1', { text: this.#topic }), errorBox(messageOf(err)));
    }
    this.#kind.textContent = this.#detail.kind;
    this.#fields.setColumns(this.#detail.columns);
    this.#builder.setFields(this.#choices());
    this.#picker.element.hidden = this.#timeless();
    this.#refresh('all', this.#timeless() ? undefined : drawn);
  }

  #layout(): void {
    const w = this.#win;
    const back = `/explore?${queryString([
      ['since', w.since],
      ['until', w.until],
    ])}`;
    fill(
      this.#main,
      h('p', { class: 'crumbs' }, h('a', { href: back, text: '← All topics' })),
      h('h1', {}, this.#topic, ' ', this.#kind),
      this.#picker.element,
      this.#rate.element,
      h('div', { class: 'two-columns' }, this.#builder.element, this.#report.element),
      this.#fields.element,
      this.#samples.element,
      h('div', { class: 'two-columns' }, this.#downloads.element, this.#live.element),
    );
  }

  #setWindow(w: TimeWindow, fromChart: boolean): void {
    this.#win = w;
    if (fromChart) this.#picker.set(w);
    this.#refresh('window');
  }

  #timeless(): boolean {
    return this.#detail !== undefined && !this.#detail.columns.some((c) => c.name === 'timestamp_broker');
  }

  #current(): QueryState {
    return { ...this.#state, window: this.#timeless() ? undefined : this.#win };
  }

  /** `drawn`: the chart already asked for (the first load asks before the topic's columns are known). */
  #refresh(change: Change, drawn?: Promise<void>): void {
    const s = this.#current();
    history.replaceState(null, '', `/explore/${encodeURIComponent(this.#topic)}?${queryString(queryParams(s))}`);
    let charted: Promise<void> = drawn ?? Promise.resolve();
    if (change !== 'select') {
      if (this.#timeless()) this.#rate.note('This table has no broker time: no event rate.');
      else if (!drawn) charted = this.#rate.draw(this.#win, this.#state.filters);
    }
    this.#afterChart(change, s, charted);
    this.#updateDownloads();
    if (!this.#timeless()) this.#live.setPath(followPath(this.#topic, s));
  }

  /**
   * The chart's query runs alone (two cores serve Trino here: three queries at once take three times as long): the
   * URL and curl are shown at once, the explain, the sample and the infer sample once the chart is drawn, and the top
   * values after the sample. A later change supersedes this one: what waits is asked only if none came.
   */
  #afterChart(change: Change, s: QueryState, charted: Promise<void>): void {
    const readPath = eventsPath(this.#topic, s, [['limit', String(SAMPLE_LIMIT)]]);
    const explainPath = eventsPath(this.#topic, s, [
      ['limit', String(SAMPLE_LIMIT)],
      ['explain', 'true'],
    ]);
    this.#report.showUrl(readPath);
    const mine = ++this.#generation;
    const current = () => mine === this.#generation;
    const sampled = charted.then(() => (current() ? this.#samples.load(readPath) : undefined));
    void charted.then(() => (current() ? this.#report.show(readPath, explainPath) : undefined));
    const inferring = (change === 'all' || change === 'window') && this.#detail?.kind === 'topic';
    const infer = inferring
      ? charted.then(async () => {
          this.#inferred = await this.#fields.infer(this.#topic, this.#win);
          this.#builder.setFields(this.#choices());
        })
      : Promise.resolve();
    const where = whereOf(this.#state.filters);
    void Promise.all([sampled, infer]).then(([sample]) => {
      if (current() && (change !== 'select' || sample))
        void this.#fields.topValues(this.#topic, s.window, where, sample);
    });
  }

  #updateDownloads(): void {
    const s = this.#current();
    this.#downloads.update({
      topic: this.#topic,
      readPath: (extra) => eventsPath(this.#topic, s, extra),
      sessionBody: {
        ...(s.select.length ? { select: s.select } : {}),
        ...(s.filters.length ? { where: whereOf(s.filters) } : {}),
        ...(s.window ? { since: s.window.since, until: s.window.until } : {}),
      },
      rows: this.#rows,
    });
  }

  #choices(): FieldChoice[] {
    const cols = (this.#detail?.columns ?? []).map((c) => ({ field: c.name, selectItem: c.name, label: c.name }));
    const json = this.#inferred.flatMap((f) => {
      const path = arrowPath(f.path);
      return path ? [{ field: path, selectItem: `${f.name.replace(/\W/g, '_')}:${path}`, label: fieldLabel(f) }] : [];
    });
    return [...cols, ...json];
  }
}

export function topicPage(main: HTMLElement, topic: string, started?: StartedRate): { reload(): void } {
  const page = new TopicPage(main, topic, started);
  void page.load();
  return page;
}
