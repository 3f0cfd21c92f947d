/**
 * The page's time window: `since` and `until` as the API takes them (ISO-8601 instants, or relative: `now`, `-15m`,
 * `-2h`, `-7d`), resolved to instants on the page for the chart's axis and its bucket width.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const RELATIVE = /^-(\d{1,9})(ms|s|m|h|d)$/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

export interface TimeWindow {
  since: string;
  until: string;
}

/** The presets of the window picker (relative windows ending now). */
export const PRESETS: readonly { label: string; since: string }[] = [
  { label: 'Last 15 minutes', since: '-15m' },
  { label: 'Last hour', since: '-1h' },
  { label: 'Last 6 hours', since: '-6h' },
  { label: 'Last day', since: '-1d' },
  { label: 'Last 7 days', since: '-7d' },
  { label: 'Last 30 days', since: '-30d' },
];

export const DEFAULT_WINDOW: TimeWindow = { since: '-1d', until: 'now' };

/** An instant in ms since the epoch, or undefined when the text is neither ISO-8601 nor relative. */
export function resolveInstant(text: string, now: number): number | undefined {
  const s = text.trim();
  if (s === 'now') return now;
  const rel = RELATIVE.exec(s);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS];
  if (!/^\d{4}-\d{2}-\d{2}/.test(s)) return undefined;
  // The API reads an instant without a zone as UTC; Date.parse would read it as local time.
  const iso = HAS_ZONE.test(s) || s.length === 10 ? s : `${s.replace(' ', 'T')}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The window's instants, or a message naming the bound that is not a time (or an empty window). */
export function resolveWindow(w: TimeWindow, now: number): { from: number; to: number } | { problem: string } {
  const from = resolveInstant(w.since, now);
  if (from === undefined) return { problem: `since: "${w.since}" is not a time (ISO-8601, or now, -15m, -2h, -7d)` };
  const to = resolveInstant(w.until, now);
  if (to === undefined) return { problem: `until: "${w.until}" is not a time (ISO-8601, or now, -15m, -2h, -7d)` };
  if (to <= from) return { problem: 'until must be after since' };
  return { from, to };
}

/** Bucket widths of the rate chart, narrowest first. */
const BUCKETS: readonly string[] = [
  '100ms',
  '1s',
  '5s',
  '10s',
  '30s',
  '1m',
  '5m',
  '10m',
  '15m',
  '30m',
  '1h',
  '3h',
  '6h',
  '12h',
  '1d',
  '7d',
];

export function durationMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** The narrowest bucket that cuts the window into at most `maxBuckets` (the widest for longer windows). */
export function bucketFor(widthMs: number, maxBuckets = 120): { text: string; ms: number } {
  for (const text of BUCKETS) {
    const ms = durationMs(text);
    if (widthMs / ms <= maxBuckets) return { text, ms };
  }
  const text = BUCKETS[BUCKETS.length - 1]!;
  return { text, ms: durationMs(text) };
}

/** An instant as the API writes it (ISO-8601 UTC, milliseconds). */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/** The same window with its instants pinned: what a drag across the chart, or zooming out, starts from. */
export function narrowed(fromMs: number, toMs: number): TimeWindow {
  return { since: isoOf(Math.floor(fromMs)), until: isoOf(Math.ceil(toMs)) };
}

/** Twice as wide around the same middle (zoom out), or moved by its own width (earlier / later). */
export function zoomOut(from: number, to: number): TimeWindow {
  const half = to - from;
  return narrowed(from - half / 2, to + half / 2);
}

export function shifted(from: number, to: number, by: -1 | 1): TimeWindow {
  const w = to - from;
  return narrowed(from + by * w, to + by * w);
}

/** Time-axis labels in UTC, 24-hour, as fine as the ticks' spacing (seconds): the date where the day changes. */
export function timeLabels(splits: number[], incrS: number): string[] {
  let day = '';
  return splits.map((s) => {
    const iso = new Date(s * 1000).toISOString();
    const date = iso.slice(0, 10);
    const time = incrS < 1 ? iso.slice(11, 23) : incrS < 60 ? iso.slice(11, 19) : iso.slice(11, 16);
    const label = incrS >= 86_400 ? date : date !== day ? `${date.slice(5)} ${time}` : time;
    day = date;
    return label;
  });
}
