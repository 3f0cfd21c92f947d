/**
 * The one duration grammar of the project: `500ms`, `30s`, `15m`, `12h`, `7d`. Settings (windows, caps), cursor
 * `settle`, time buckets and relative times (`-15m`) all read durations with it.
 */
export const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The grammar as a JSON Schema pattern (config file durations, e.g. `topics.<t>.settle`). */
export const DURATION_PATTERN = '^(\\d{1,9})(ms|s|m|h|d)$';

const DURATION = new RegExp(DURATION_PATTERN);

/** Milliseconds of a duration, or undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  return m ? Number(m[1]) * DURATION_UNITS_MS[m[2] as keyof typeof DURATION_UNITS_MS] : undefined;
}
