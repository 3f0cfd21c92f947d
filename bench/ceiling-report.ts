/**
 * The gateway against the ceiling (Trino's protocol read and thrown away, bench/ceiling-client.ts): each single
 * stream's rows/s as a share of the ceiling's over the same protocol, and its CPU per row, against the targets
 * for a gateway that writes its output from Trino's page bytes without building rows.
 */
import { FORMATS, type CaseResult } from './race.js';
import { fmtInt, rate } from './report.js';

/** Least share of the ceiling's rows/s, and most gateway CPU µs per row, by format. */
const TARGETS = {
  ndjson: { share: 0.85, cpuUs: 1.0 },
  csv: { share: 0.85, cpuUs: 1.0 },
  arrow: { share: 0.75, cpuUs: 1.5 },
} satisfies Record<(typeof FORMATS)[number], { share: number; cpuUs: number }>;

const cpuUs = (r: CaseResult) => (r.best.cpu / r.best.rows) * 1e6;

/** At 10^6 rows (or the largest size below it), the lines that say how far each single stream is from the ceiling. */
export function ceilingVerdicts(results: CaseResult[]): string[] {
  const sizes = [...new Set(results.map((r) => r.size))].sort((a, b) => a - b);
  const mid = [...sizes].reverse().find((x) => x <= 1_000_000) ?? sizes[0]!;
  const at = (id: string) => results.find((r) => r.size === mid && r.id === id);
  const ceilings = (['ceiling', 'ceiling@spool'] as const).flatMap((id) => {
    const c = at(id);
    return c
      ? [
          `${id === 'ceiling' ? 'direct' : 'spooled'} ${fmtInt(rate(c.best))} rows/s (${cpuUs(c).toFixed(1)} µs/row of its own CPU)`,
        ]
      : [];
  });
  if (ceilings.length === 0) return [];
  const out = [`The gateway against the ceiling, at ${fmtInt(mid)} rows (the ceiling: ${ceilings.join('; ')}):`, ''];
  for (const f of FORMATS) {
    for (const mode of ['', '@spool']) {
      const s = at(`${f}${mode}`);
      const c = at(`ceiling${mode}`);
      if (!s || !c) continue;
      const share = rate(s.best) / rate(c.best);
      const t = TARGETS[f];
      // What the gateway does beyond reading the protocol (rows parsed into values, encoded, written) costs the
      // CPU it uses beyond the ceiling's: on these shared cores, CPU Trino cannot use.
      out.push(
        `- ${f} single stream${mode ? ' over spooling' : ', direct'}: ${share.toFixed(2)}x the ceiling ` +
          `(target at least ${t.share}x: ${share >= t.share ? 'meets' : 'MISSES'}); gateway CPU ${cpuUs(s).toFixed(1)} µs/row ` +
          `(target at most ${t.cpuUs.toFixed(1)}: ${cpuUs(s) <= t.cpuUs ? 'meets' : 'MISSES'}), ` +
          `${(cpuUs(s) - cpuUs(c)).toFixed(1)} µs/row more than the ceiling's`,
      );
    }
  }
  return out;
}
