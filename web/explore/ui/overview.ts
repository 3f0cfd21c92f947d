/**
 * `/explore`: the topics the caller may read (GET /v1/topics answers only those), with kind, events in the window
 * and a sparkline of their rate: one aggregation per topic, the first alone and then a few at a time, for the first
 * SPARK_CAP topics (a button draws the next ones). The first load takes the listing and the first sparkline's
 * aggregation that the script started from the URL (first-requests.ts).
 */
import { resolveWindow, type TimeWindow } from '../model/time-window.js';
import { queryString } from '../model/query-state.js';
import { getJson, messageOf } from './api.js';
import { h, fill, section, errorBox, formatCount, statusLine } from './dom.js';
import { sparkline } from './charts.js';
import { type Rate, loadRate } from './rate-query.js';
import { windowPicker } from './window-picker.js';
import { type FirstRequests, type TopicSummary, overviewWindow } from './first-requests.js';

export const SPARK_CAP = 12;
const AT_ONCE = 3;

type FirstOverview = Extract<FirstRequests, { page: 'overview' }>;

interface TopicRow {
  topic: TopicSummary;
  tr: HTMLElement;
  /** `started`: its aggregation, already asked for. */
  draw(resolved: { from: number; to: number }, started?: Promise<Rate>): Promise<void>;
}

const windowQuery = (w: TimeWindow) =>
  queryString([
    ['since', w.since],
    ['until', w.until],
  ]);

/** A topic's row: its link, kind, and (once drawn) its events in the window and its sparkline. */
function topicRow(t: TopicSummary, w: TimeWindow): TopicRow {
  const size = h('td', { class: 'num', text: t.kind === 'topic' ? '…' : '—' });
  const rate = h('td', { class: 'rate' });
  const href = `/explore/${encodeURIComponent(t.name)}?${windowQuery(w)}`;
  const tr = h(
    'tr',
    { 'data-topic': t.name },
    h('th', { scope: 'row' }, h('a', { href, text: t.name })),
    h('td', { text: t.kind }),
    size,
    rate,
  );
  const draw = async (resolved: { from: number; to: number }, started?: Promise<Rate>) => {
    try {
      const { series } = await (started ?? loadRate(t.name, w, resolved, undefined, { maxBuckets: 48 }));
      size.textContent = formatCount(series.total);
      fill(rate, sparkline(series, `${t.name}: ${formatCount(series.total)} events in the window`));
    } catch (err) {
      size.textContent = '—';
      fill(rate, h('span', { class: 'error small', text: messageOf(err) }));
    }
  };
  return { topic: t, tr, draw };
}

function topicTable(w: TimeWindow, rows: readonly TopicRow[]): HTMLElement {
  const heads = ['topic', 'kind', 'events in window', 'rate'].map((t) => h('th', { scope: 'col', text: t }));
  return h(
    'table',
    { class: 'topic-table' },
    h('caption', { class: 'sr-only', text: `Topics and their events from ${w.since} until ${w.until}` }),
    h('thead', {}, h('tr', {}, heads)),
    h(
      'tbody',
      {},
      rows.map((r) => r.tr),
    ),
  );
}

class Overview {
  #window: TimeWindow;
  #generation = 0;
  readonly #status = statusLine();
  readonly #body = h('div', { class: 'topics' });
  /** The requests the script started from the URL (first load only). */
  #first: FirstOverview | undefined;

  constructor(main: HTMLElement, first?: FirstOverview) {
    this.#first = first;
    this.#window = first?.window ?? overviewWindow(location.search);
    document.title = 'Topics: topicgate explorer';
    const picker = windowPicker(this.#window, (w) => this.#setWindow(w), false);
    const lead =
      'The topics your credential may read, with their event rate over the window. Pick one to see its fields, events and queries.';
    fill(
      main,
      h('h1', { text: 'Topics' }),
      h('p', { class: 'lead', text: lead }),
      picker.element,
      section('topic-list', 'Served topics', this.#status, this.#body),
    );
  }

  reload(): void {
    void this.load();
  }

  #setWindow(w: TimeWindow): void {
    this.#window = w;
    history.replaceState(null, '', `/explore?${windowQuery(w)}`);
    void this.load();
  }

  async load(): Promise<void> {
    const mine = ++this.#generation;
    const first = this.#first;
    this.#first = undefined;
    this.#status.textContent = 'Loading topics…';
    let topics: TopicSummary[];
    try {
      topics = await (first?.topics ?? getJson<{ topics: TopicSummary[] }>('/v1/topics').then((r) => r.topics));
    } catch (err) {
      if (mine !== this.#generation) return;
      this.#status.textContent = '';
      return fill(this.#body, errorBox(messageOf(err)));
    }
    if (mine !== this.#generation) return;
    this.#status.textContent = `${topics.length} topics`;
    const rows = topics.map((t) => topicRow(t, this.#window));
    fill(this.#body, topicTable(this.#window, rows));
    const resolved = resolveWindow(this.#window, Date.now());
    if ('problem' in resolved) return;
    const drawable = rows.filter((r) => r.topic.kind === 'topic');
    const spark = await first?.firstSpark;
    await this.#draw(drawable.slice(0, SPARK_CAP), resolved, mine, spark);
    const rest = drawable.slice(SPARK_CAP);
    if (rest.length === 0 || mine !== this.#generation) return;
    const more: HTMLElement = h('button', {
      type: 'button',
      text: `Draw the rate of ${rest.length} more topics`,
      onclick: () => {
        more.remove();
        void this.#draw(rest, resolved, mine);
      },
    });
    this.#body.append(more);
  }

  /**
   * The first sparkline alone, so it is drawn as soon as one query can answer (`spark`: its aggregation, already
   * asked for); then a few at a time.
   */
  async #draw(
    batch: readonly TopicRow[],
    resolved: { from: number; to: number },
    mine: number,
    spark?: { topic: string; rate: Promise<Rate> },
  ): Promise<void> {
    const queue = [...batch];
    const head = queue.shift();
    await head?.draw(resolved, spark && spark.topic === head.topic.name ? spark.rate : undefined);
    const worker = async () => {
      for (let r = queue.shift(); r && mine === this.#generation; r = queue.shift()) await r.draw(resolved);
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
  }
}

export function overviewPage(main: HTMLElement, first?: FirstOverview): { reload(): void } {
  const page = new Overview(main, first);
  void page.load();
  return page;
}
