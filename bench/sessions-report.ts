/**
 * The sessions bench's results (bench/sessions.ts) in Markdown: one line per case (its best run), the ceiling the
 * cores allow at each case's CPU per row, and what 10^9 rows in 10 minutes would need at the measured CPU per row.
 */
import { fmtInt } from './report.js';

export interface SessionCase {
  id: string;
  /** 0: the single `limit=all` response; else the session's streams. */
  streams: number;
  /** Through one instance (addressed directly), or through HAProxy over two. */
  via: 'one' | 'two';
}

export interface SessionRun {
  rows: number;
  /** End to end: the session made, then every stream read. */
  seconds: number;
  createSeconds: number;
  firstSeconds: number;
  /** CPU seconds of each process during the case. */
  cpu: { gateways: number[]; trino: number | undefined; balancer: number; client: number };
  /** Share of all cores' time busy during the case. */
  busy: number;
}

export interface SessionFacts {
  command: string;
  date: string;
  rows: number;
  format: string;
  cores: number;
  load0: number;
  load1: number;
}

const label = (c: SessionCase) =>
  c.streams === 0
    ? 'one response (`limit=all`), one instance'
    : `session, ${c.streams} stream${c.streams > 1 ? 's' : ''}, ${c.via === 'one' ? 'one instance' : 'two instances (HAProxy)'}`;
const us = (cpu: number | undefined, rows: number) => (cpu === undefined ? '–' : ((cpu / rows) * 1e6).toFixed(2));
const best = (runs: SessionRun[]) => runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
const rate = (r: SessionRun) => r.rows / r.seconds;
/** Gateways' and Trino's CPU seconds per row: the work a read costs wherever it runs. */
const workPerRow = (r: SessionRun) => (r.cpu.gateways.reduce((a, b) => a + b, 0) + (r.cpu.trino ?? 0)) / r.rows;

export function sessionReport(results: { c: SessionCase; runs: SessionRun[] }[], f: SessionFacts): string {
  const single = best(results.find((x) => x.c.streams === 0)!.runs);
  const lines = [
    `${f.command}: ${fmtInt(f.rows)} rows of clicks in ${f.format}, best of ${results[0]!.runs.length} runs per case, ` +
      `${f.date.slice(0, 16).replace('T', ' ')} UTC, load average ${f.load0.toFixed(1)} at the start and ${f.load1.toFixed(1)} at the end, ${f.cores} cores.`,
    '',
    '| case | seconds | session made s | first byte s | rows/s | vs one response | gateway 1 CPU µs/row | gateway 2 | Trino | HAProxy | client | machine busy | ceiling rows/s | of the ceiling |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { c, runs } of results) {
    const r = best(runs);
    const ceiling = f.cores / workPerRow(r);
    lines.push(
      `| ${label(c)} | ${r.seconds.toFixed(2)} | ${c.streams ? r.createSeconds.toFixed(2) : '–'} | ${r.firstSeconds.toFixed(2)} | ` +
        `${fmtInt(rate(r))} | ${(rate(r) / rate(single)).toFixed(2)}x | ${us(r.cpu.gateways[0], r.rows)} | ` +
        `${us(r.cpu.gateways[1], r.rows)} | ${us(r.cpu.trino, r.rows)} | ` +
        `${c.via === 'two' ? us(r.cpu.balancer, r.rows) : '–'} | ${us(r.cpu.client, r.rows)} | ${Math.round(r.busy * 100)}% | ` +
        `${fmtInt(ceiling)} | ${(rate(r) / ceiling).toFixed(2)} |`,
    );
  }
  const widest = results.filter((x) => x.c.via === 'two').sort((a, b) => b.c.streams - a.c.streams)[0];
  if (widest) lines.push('', ...billionRows(widest.c, best(widest.runs)));
  return lines.join('\n');
}

/**
 * 10^9 rows in 10 minutes at a case's CPU per row: the rows/s it takes, and the cores of gateway instances and of
 * Trino that rate keeps busy (a Node instance runs its JavaScript on one core; Trino workers of 16 cores).
 */
function billionRows(c: SessionCase, r: SessionRun): string[] {
  const need = 1e9 / 600;
  const gw = r.cpu.gateways.reduce((a, b) => a + b, 0) / r.rows;
  const trino = (r.cpu.trino ?? NaN) / r.rows;
  const client = r.cpu.client / r.rows;
  const [gwCores, trinoCores, clientCores] = [need * gw, need * trino, need * client];
  const f = (x: number) => x.toFixed(1);
  return [
    `10^9 rows in 10 minutes, at the CPU per row of "${label(c)}":`,
    '',
    `- rate: 10^9 / 600 s = ${fmtInt(need)} rows/s`,
    `- gateway instances: ${fmtInt(need)} rows/s × ${(gw * 1e6).toFixed(2)} µs/row = ${f(gwCores)} cores; one instance ` +
      `runs its JavaScript on one core, so at least ${Math.ceil(gwCores)} instances (${Math.ceil(gwCores / 0.7)} to keep each at 70%)`,
    `- Trino: ${fmtInt(need)} rows/s × ${(trino * 1e6).toFixed(2)} µs/row = ${f(trinoCores)} cores: ` +
      `${Math.ceil(trinoCores / 16)} workers of 16 cores (${Math.ceil(trinoCores / 16 / 0.7)} at 70%)`,
    `- the loader reading the streams: ${fmtInt(need)} rows/s × ${(client * 1e6).toFixed(2)} µs/row = ${f(clientCores)} cores`,
    `- streams: at least one per instance, ${Math.ceil(gwCores / 0.7) * 2} (two per instance) so a slow one does not idle a core`,
  ];
}
