/**
 * What the page asks of the API before anything else: the script's small first part (main.ts) starts these as soon
 * as it runs, from the page's URL alone, while the rest of the page's code (explore-app.js) is still loading. A
 * topic page's first request is its rate chart's aggregation (the topic's description follows, beside it); the
 * overview's are the listing and, as soon as it answers, the first topic's sparkline. The pages take these answers
 * for their first draw and ask anew for anything later (a new window, filter or credential).
 */
import { DEFAULT_WINDOW, resolveWindow, type TimeWindow } from '../model/time-window.js';
import { stateFromSearch, whereOf } from '../model/query-state.js';
import { getJson } from './api.js';
import { type Rate, loadRate } from './rate-query.js';

export interface TopicSummary {
  name: string;
  kind: 'topic' | 'table';
  schema: string;
}

/** A rate aggregation under way (abort: the page no longer wants it). */
export interface StartedRate {
  rate: Promise<Rate>;
  abort: AbortController;
}

export type FirstRequests =
  | { page: 'topic'; topic: string; rate: StartedRate | undefined }
  | {
      page: 'overview';
      window: TimeWindow;
      topics: Promise<TopicSummary[]>;
      /** The first topic's sparkline (the first listed topic of kind `topic`), none when there is none. */
      firstSpark: Promise<{ topic: string; rate: Promise<Rate> } | undefined>;
    };

/** The overview's window: the URL's `since` and `until`, each defaulting to the last day's. */
export function overviewWindow(search: string): TimeWindow {
  const p = new URLSearchParams(search);
  return { since: p.get('since') ?? DEFAULT_WINDOW.since, until: p.get('until') ?? DEFAULT_WINDOW.until };
}

/** The topic of a topic page's path, undefined on the overview. */
export function pageTopic(pathname: string): string | undefined {
  const m = /^\/explore\/([^/]+)\/?$/.exec(pathname);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

/** A rejection the page has not yet come for is not an unhandled one: the page reads it when it takes the answer. */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

function startRate(topic: string, win: TimeWindow, where: unknown, maxBuckets?: number): StartedRate | undefined {
  const resolved = resolveWindow(win, Date.now());
  if ('problem' in resolved) return undefined;
  const abort = new AbortController();
  return { rate: quiet(loadRate(topic, win, resolved, where, { maxBuckets, signal: abort.signal })), abort };
}

/** Starts the page's first requests (its URL says which page it is). */
export function startFirstRequests(where: Pick<Location, 'pathname' | 'search'>): FirstRequests {
  const topic = pageTopic(where.pathname);
  if (topic !== undefined) {
    const s = stateFromSearch(where.search, DEFAULT_WINDOW);
    return { page: 'topic', topic, rate: startRate(topic, s.window ?? DEFAULT_WINDOW, whereOf(s.filters)) };
  }
  const window = overviewWindow(where.search);
  const topics = quiet(getJson<{ topics: TopicSummary[] }>('/v1/topics').then((r) => r.topics));
  const firstSpark = quiet(
    topics.then((ts) => {
      const first = ts.find((t) => t.kind === 'topic');
      const started = first && startRate(first.name, window, undefined, 48);
      return started && { topic: first.name, rate: started.rate };
    }),
  );
  return { page: 'overview', window, topics, firstSpark };
}
