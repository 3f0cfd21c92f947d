/** The bench's tables and verdicts, in Markdown (printed, and written into docs/benchmarks.md). */
import type { PagingRun } from './paging.js';
import { ceilingOf, FORMATS, type CaseResult } from './race.js';

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
export const rate = (r: { rows: number; seconds: number }) => r.rows / r.seconds;
const perRow = (cpu: number, rows: number) => ((cpu / rows) * 1e6).toFixed(1);
const pct = (share: number | undefined, none = '–') => (share !== undefined ? `${Math.round(share * 100)}%` : none);

function rawOf(results: CaseResult[], size: number): CaseResult {
  return results.find((r) => r.size === size && r.id === 'raw')!;
}

/** rows/s over the ceiling's of the same protocol at the same size, when that ceiling ran. */
export function toCeiling(results: CaseResult[], r: CaseResult): number | undefined {
  const ceiling = results.find((x) => x.size === r.size && x.id === ceilingOf(r.id));
  return ceiling ? rate(r.best) / rate(ceiling.best) : undefined;
}

export function raceTable(results: CaseResult[]): string {
  const lines = [
    '| rows | case | seconds | first byte s | rows/s | ratio to raw | ratio to ceiling | CPU µs/row | Trino CPU µs/row | machine busy | peak RSS MB | idle RSS MB | body MB | Trino queries | rows read by Trino |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    const ratio = rate(r.best) / rate(rawOf(results, r.size).best);
    const ceiling = toCeiling(results, r);
    lines.push(
      `| ${fmtInt(r.size)} | ${r.label} | ${r.best.seconds.toFixed(2)} | ${r.best.firstSeconds?.toFixed(2) ?? '–'} | ` +
        `${fmtInt(rate(r.best))} | ${ratio.toFixed(2)} | ${ceiling?.toFixed(2) ?? '–'} | ${perRow(r.best.cpu, r.best.rows)} | ` +
        `${r.best.trinoCpu !== undefined ? perRow(r.best.trinoCpu, r.best.rows) : '–'} | ` +
        `${pct(r.best.machineBusy)} | ${mb(r.peakRssBytes)} | ` +
        `${r.idleRssBytes !== undefined ? mb(r.idleRssBytes) : '–'} | ${r.best.bytes !== undefined ? mb(r.best.bytes) : '–'} | ` +
        `${r.trino ? r.trino.queries.toFixed(1) : '1'} | ${r.trino ? fmtInt(r.trino.rowsRead) : '–'} |`,
    );
  }
  return lines.join('\n');
}

/** The race's targets (speed against the Trino CLI and the python client, flat RSS), at 10^6 rows (or the largest size below it), and RSS across the sizes run. */
export function raceVerdicts(results: CaseResult[]): string[] {
  const sizes = [...new Set(results.map((r) => r.size))].sort((a, b) => a - b);
  const mid = [...sizes].reverse().find((x) => x <= 1_000_000) ?? sizes[0]!;
  const [small, big] = [sizes[0]!, sizes.at(-1)!];
  const at = (size: number, id: string) => results.find((r) => r.size === size && r.id === id);
  const x = (a: CaseResult | undefined, b: CaseResult | undefined) => (a && b ? rate(a.best) / rate(b.best) : NaN);
  const verdict = (v: number, target: number) =>
    Number.isNaN(v) ? 'not run' : `${v.toFixed(2)}x (${v >= target ? 'meets' : 'MISSES'} ${target}x)`;
  const raw = at(mid, 'raw');
  // The anchors at their best, direct or spooled.
  const bestOf = (id: string) =>
    [at(mid, id), at(mid, `${id}@spool`)].filter((r) => r !== undefined).sort((a, b) => rate(b.best) - rate(a.best))[0];
  const out = ['Issue 12 (the gateway against the raw client and the anchors), at ' + fmtInt(mid) + ' rows:', ''];
  for (const f of FORMATS) {
    for (const mode of ['', '@spool']) {
      const s = at(mid, `${f}${mode}`);
      if (!s) continue;
      const ahead = (['python', 'cli'] as const)
        .map((a) => `${x(s, bestOf(a)).toFixed(2)}x the ${a === 'cli' ? 'Trino CLI' : 'python client'} (its best mode)`)
        .join(', ');
      let line = `- ${f} single stream${mode ? ' over spooling' : ', direct'}: ${verdict(x(s, raw), 1)} the raw client; ${ahead}`;
      const p4 = at(mid, `${f}-p4${mode}`);
      if (p4) line += `; parallel=4 ${verdict(x(p4, s), 1.5)} the single stream`;
      if (big !== small && at(small, `${f}${mode}`) && at(big, `${f}${mode}`)) {
        const g = at(big, `${f}${mode}`)!.peakRssBytes / at(small, `${f}${mode}`)!.peakRssBytes;
        line += `; peak RSS x${g.toFixed(2)} from ${fmtInt(small)} to ${fmtInt(big)} rows (target at most 1.25x: ${g <= 1.25 ? 'meets' : 'MISSES'})`;
      }
      out.push(line);
    }
  }
  out.push('', `Issue 15 (spooled results), at ${fmtInt(mid)} rows:`, '');
  for (const f of FORMATS) {
    const s = at(mid, `${f}@spool`);
    if (!s) continue;
    out.push(
      `- ${f} over spooling: ${verdict(x(s, raw), 2)} the raw client's direct rows/s; ` +
        `${verdict(x(s, at(mid, 'python@spool')), 1)} the python client over spooling`,
    );
  }
  return out;
}

/**
 * parallel=N against the single stream of the same format and transport, with how busy the machine was. Slices add
 * no work, only concurrency, so where the single stream kept the cores busy a share b of the time, N slices can go
 * at most 1/b times as fast at the same CPU per row (every process's: Trino, the database, the gateway).
 */
export function parallelVerdicts(results: CaseResult[]): string[] {
  const first = (r: CaseResult) => (r.best.firstSeconds !== undefined ? `${r.best.firstSeconds.toFixed(2)} s` : '?');
  return results.flatMap((r) => {
    const m = /^(\w+)-p(\d+)(@spool)?$/.exec(r.id);
    const single = m && results.find((x) => x.size === r.size && x.id === `${m[1]}${m[3] ?? ''}`);
    if (!m || !single) return [];
    const v = rate(r.best) / rate(single.best);
    const b = single.best.machineBusy;
    const ceiling = b ? `, so the cores allow at most ${(1 / b).toFixed(2)}x at its CPU per row` : '';
    const trino = (x: CaseResult) => (x.best.trinoCpu !== undefined ? perRow(x.best.trinoCpu, x.best.rows) : '?');
    return [
      `- ${r.label}: ${v.toFixed(2)}x the single stream (target for parallel=4: 1.5x${m[2] === '4' ? `, ${v >= 1.5 ? 'meets' : 'MISSES'}` : ''}); ` +
        `machine busy ${pct(r.best.machineBusy, '?')} (single stream ${pct(b, '?')}${ceiling}); ` +
        `Trino CPU ${trino(r)} µs/row (single ${trino(single)}); first byte after ${first(r)} (single ${first(single)})`,
    ];
  });
}

const sumOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function pagingTable(runs: PagingRun[]): string {
  const lines = [
    '| catalog | read as | responses | Trino queries | rows returned | seconds | rows read by Trino | read / returned | time / one response |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of runs) {
    const rows = sumOf(r.pages.map((p) => p.rows));
    const secs = sumOf(r.pages.map((p) => p.seconds));
    const read = sumOf(r.pages.map((p) => p.rowsRead));
    const queries = sumOf(r.pages.map((p) => p.queries.length));
    lines.push(
      `| ${r.catalog} | pages of 10,000 | ${r.pages.length} | ${queries} | ${fmtInt(rows)} | ${secs.toFixed(1)} | ${fmtInt(read)} | ` +
        `${(read / rows).toFixed(2)} | ${(secs / r.single.seconds).toFixed(2)} |`,
      `| ${r.catalog} | one response | 1 | ${r.single.queries.length} | ${fmtInt(r.single.rows)} | ${r.single.seconds.toFixed(1)} | ` +
        `${fmtInt(r.single.rowsRead)} | ${(r.single.rowsRead / r.single.rows).toFixed(2)} | 1.00 |`,
    );
  }
  return lines.join('\n');
}

export function pagingVerdicts(runs: PagingRun[]): string[] {
  return runs.map((r) => {
    const rows = sumOf(r.pages.map((p) => p.rows));
    const read = sumOf(r.pages.map((p) => p.rowsRead)) / rows;
    const time = sumOf(r.pages.map((p) => p.seconds)) / r.single.seconds;
    const worst = Math.max(...r.pages.map((p) => p.rowsRead));
    return (
      `- ${r.catalog}: paging read ${read.toFixed(2)}x the rows it returned (target at most 2x: ${read <= 2 ? 'meets' : 'MISSES'}) ` +
      `and took ${time.toFixed(2)}x one response's time (target at most 1.5x: ${time <= 1.5 ? 'meets' : 'MISSES'}); ` +
      `the most rows one page read: ${fmtInt(worst)}`
    );
  });
}
