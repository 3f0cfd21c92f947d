/**
 * The race (issues 12 and 15): every client reads the same window of the same topic, one result size at a time.
 * Cases: the Trino CLI (CSV to a file), the python `trino` client (fetchmany), the raw trino-client in Node, and the
 * gateway in NDJSON, CSV and Arrow, as one stream and with `parallel=2` and `4`; the CLI, python and the gateway
 * each over the direct protocol and over spooled results (`@spool`: json+zstd; the raw trino-client speaks only the
 * direct protocol). The anchors run the SQL text the gateway's single stream runs (its `explain=true`), so Trino
 * does the same work for all. Every long-lived measured process (raw client, one gateway per gateway case) is
 * started fresh for each size, so its peak RSS is that of the size alone; the CLI and python report their own (one
 * process per run).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layout, serverPids } from '../scripts/local-trino.js';
import { runCli, runPython } from './anchors.js';
import { getJson, readGateway, ROOT, startGateway, type Format, type Gateway } from './gateway.js';
import { busyShare, cpuSeconds, currentRss, machineTicks, peakRss } from './proc.js';
import { forkRaw } from './raw-fork.js';
import { queriesOf, runUser } from './trino-stats.js';
import type { Window } from './window.js';

export const FORMATS: Format[] = ['ndjson', 'csv', 'arrow'];
export type Anchor = 'cli' | 'python' | 'raw' | 'cli@spool' | 'python@spool';
export const ANCHORS: Anchor[] = ['cli', 'cli@spool', 'python', 'python@spool', 'raw'];
export interface GatewayCase {
  format: Format;
  /** 1: one stream; more: `parallel=<n>`. */
  parallel: number;
  /** Over spooled results (the gateway's default encodings) rather than the direct protocol. */
  spooled: boolean;
}
type GatewayId = `${Format}` | `${Format}-p${number}`;
export type CaseId = Anchor | GatewayId | `${GatewayId}@spool`;
/** The encodings a spooled case asks for (the gateway's default; the CLI and python take the first). */
export const SPOOLED_ENCODING = 'json+zstd,json+lz4,json';

export interface Run {
  rows: number;
  seconds: number;
  cpu: number;
  bytes?: number;
  /** Gateway cases: seconds until the first body byte (an ordered read's first slice is sorted before it). */
  firstSeconds?: number;
  /** CPU seconds the Trino server used during the run (the same for every client: it runs the same SQL). */
  trinoCpu?: number;
  /** The share of the machine's CPU (every core) busy during the run: Trino, the client and anything else. */
  machineBusy?: number;
}

export interface CaseResult {
  size: number;
  id: CaseId;
  label: string;
  runs: Run[];
  best: Run;
  peakRssBytes: number;
  /** RSS before the first request (long-lived processes only). */
  idleRssBytes?: number;
  /** Gateway cases: Trino queries sent per response, and rows they read (from Trino's query statistics). */
  trino?: { queries: number; rowsRead: number };
}

export interface GatewayFeatures {
  limitAll: boolean;
  parallel: boolean;
  /** Per-topic Trino session properties in the config file (`topics.<t>.session`). */
  session: boolean;
}

export interface RaceSetup {
  trinoUrl: string;
  topic: string;
  gatewayEnv: Record<string, string>;
  features: GatewayFeatures;
  user: string;
  /** How the topic's table appears in the gateway's SQL (its reads, not its metadata look-ups). */
  tableText: string;
  log: (msg: string) => void;
}

export const caseId = (g: GatewayCase): CaseId =>
  `${g.parallel > 1 ? `${g.format}-p${g.parallel}` : g.format}${g.spooled ? '@spool' : ''}` as CaseId;
const ANCHOR_LABELS: Record<string, string> = {
  cli: 'Trino CLI (CSV file)',
  python: 'python trino (fetchmany)',
  raw: 'raw trino-client (Node)',
};
export const caseLabel = (id: CaseId): string => {
  const [base, spool] = id.split('@');
  const label = ANCHOR_LABELS[base!] ?? `gateway ${base!.replace(/-p(\d+)/, ' parallel=$1')}`;
  return spool ? `${label}, spooled` : label;
};

export function gatewayCases(features: GatewayFeatures): GatewayCase[] {
  const modes = features.parallel ? [1, 2, 4] : [1];
  return [false, true].flatMap((spooled) =>
    modes.flatMap((parallel) => FORMATS.map((format) => ({ format, parallel, spooled }))),
  );
}

/** The cases of a run: every one, or those `only` names (ids as in the table, e.g. `raw,ndjson@spool`). */
export function selectCases(
  features: GatewayFeatures,
  only?: readonly string[],
): { anchors: Anchor[]; gateway: GatewayCase[] } {
  const pick = <T>(xs: T[], id: (x: T) => string) => (only ? xs.filter((x) => only.includes(id(x))) : xs);
  return { anchors: pick(ANCHORS, (a) => a), gateway: pick(gatewayCases(features), caseId) };
}

/** The request path of a gateway case over a window: `limit=all` once the gateway has it, else one big page. */
export function eventsPath(topic: string, w: Window, g: GatewayCase, features: GatewayFeatures): string {
  const q = new URLSearchParams({ since: w.since, until: w.until });
  q.set('limit', features.limitAll ? 'all' : String(w.rows));
  if (g.parallel > 1) q.set('parallel', String(g.parallel));
  q.set('format', g.format);
  return `/v1/topics/${encodeURIComponent(topic)}/events?${q}`;
}

export async function raceSize(
  s: RaceSetup,
  w: Window,
  reps: number,
  profile = false,
  only?: readonly string[],
): Promise<CaseResult[]> {
  const { anchors, gateway: gcases } = selectCases(s.features, only);
  if (!anchors.includes('raw')) throw new Error('every race needs the raw client: ratios are to it');
  const gateways = new Map<CaseId, Gateway>();
  const users = new Map<CaseId, string>();
  const raw = forkRaw(s.trinoUrl);
  try {
    // One at a time: a loaded 2-core machine starts several tsx processes slower than it starts them in turn.
    for (const g of gcases) {
      const dir = join(ROOT, 'bench', 'profiles', `${w.rows}-${caseId(g)}`);
      if (profile) rmSync(dir, { recursive: true, force: true });
      // A Trino user per gateway, so its queries can be counted afterwards.
      const env = {
        ...s.gatewayEnv,
        TOPICGATE_TRINO_ENCODING: g.spooled ? SPOOLED_ENCODING : 'none',
        TOPICGATE_TRINO_USER: users.set(caseId(g), runUser(`race-${caseId(g).replace('@', '-')}`)).get(caseId(g))!,
      };
      gateways.set(caseId(g), await startGateway(env, profile ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []));
    }
    await raw.ready;
    await new Promise((r) => setTimeout(r, 500)); // settle after module loading, so idle RSS means something
    const pidOf = (id: CaseId) => (id === 'raw' ? raw.pid : gateways.get(id)?.pid);
    const ids: CaseId[] = [...anchors, ...gcases.map(caseId)];
    const idle = new Map(ids.flatMap((id) => (pidOf(id) ? [[id, currentRss(pidOf(id)!)] as const] : [])));
    const single = gateways.values().next().value!;
    const { sql } = await getJson<{ sql: string }>(
      `${single.url}${eventsPath(s.topic, w, { format: 'ndjson', parallel: 1, spooled: false }, s.features)}&explain=true`,
    );
    const runs = new Map<CaseId, Run[]>(ids.map((id) => [id, []]));
    // The bench's Trino is the local one (run.ts starts it), so its CPU per run can be read beside the client's.
    const trinoPid = serverPids(layout())[0];
    const anchorPeak = new Map<CaseId, number>();
    for (let rep = 0; rep < reps; rep++) {
      // Round-robin, starting one case later each repetition, to spread other load on the machine evenly.
      for (const id of ids.map((_, i) => ids[(i + rep) % ids.length]!)) {
        const pid = pidOf(id);
        const cpu0 = pid ? cpuSeconds(pid) : 0;
        const trinoCpu0 = trinoPid ? cpuSeconds(trinoPid) : 0;
        const ticks0 = machineTicks();
        let run: Run;
        if (id.startsWith('cli') || id.startsWith('python')) {
          const encoding = id.endsWith('@spool') ? SPOOLED_ENCODING.split(',')[0]! : 'none';
          const r = id.startsWith('cli')
            ? await runCli(s.trinoUrl, s.user, sql, join(tmpdir(), 'topicgate-bench'), encoding)
            : await runPython(s.trinoUrl, s.user, sql, encoding);
          anchorPeak.set(id, Math.max(anchorPeak.get(id) ?? 0, r.peakRssBytes));
          run = { rows: r.rows, seconds: r.seconds, cpu: r.cpu };
        } else if (id === 'raw') {
          const r = await raw.run(sql, s.user);
          run = { rows: r.rows, seconds: r.seconds, cpu: cpuSeconds(pid!) - cpu0 };
        } else {
          const g = gcases.find((c) => caseId(c) === id)!;
          const r = await readGateway(
            `${gateways.get(id)!.url}${eventsPath(s.topic, w, g, s.features)}`,
            g.format,
            w.rows,
          );
          run = {
            rows: r.rows,
            seconds: r.seconds,
            cpu: cpuSeconds(pid!) - cpu0,
            bytes: r.bytes,
            firstSeconds: r.firstSeconds,
          };
        }
        if (trinoPid) run.trinoCpu = cpuSeconds(trinoPid) - trinoCpu0;
        run.machineBusy = busyShare(ticks0, machineTicks());
        if (run.rows !== w.rows) throw new Error(`${caseLabel(id)} read ${run.rows} rows, expected ${w.rows}`);
        runs.get(id)!.push(run);
        s.log(
          `${w.rows} ${id.padEnd(10)} rep ${rep + 1}/${reps}: ${run.seconds.toFixed(2)}s ` +
            `${Math.round(run.rows / run.seconds)} rows/s, cpu ${run.cpu.toFixed(2)}s`,
        );
      }
    }
    const trino = new Map<CaseId, { queries: number; rowsRead: number }>();
    for (const [id, user] of users) {
      const qs = await queriesOf(s.trinoUrl, user, s.tableText);
      trino.set(id, { queries: qs.length / reps, rowsRead: qs.reduce((n, q) => n + q.rowsRead, 0) / reps });
    }
    return ids.map((id) => {
      const rs = runs.get(id)!;
      const pid = pidOf(id);
      return {
        size: w.rows,
        id,
        label: caseLabel(id),
        runs: rs,
        best: rs.reduce((a, b) => (b.seconds < a.seconds ? b : a)),
        peakRssBytes: pid ? peakRss(pid) : anchorPeak.get(id)!,
        ...(idle.has(id) ? { idleRssBytes: idle.get(id)! } : {}),
        ...(trino.has(id) ? { trino: trino.get(id)! } : {}),
      };
    });
  } finally {
    await raw.stop();
    for (const g of gateways.values()) await g.stop();
  }
}
