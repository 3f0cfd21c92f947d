/**
 * One size of the race (bench/race.ts says what it is): the measured processes started for this size alone, every
 * case run a few times round-robin, and each case's best run, peak RSS and Trino queries.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { layout, serverPids } from '../scripts/local-trino.js';
import { runCli, runPython } from './anchors.js';
import { forkClient, type ForkedClient } from './client-fork.js';
import { getJson, readGateway, ROOT, startGateway, type Gateway } from './gateway.js';
import { busyShare, cpuSeconds, currentRss, machineTicks, peakRss } from './proc.js';
import {
  caseId,
  caseLabel,
  eventsPath,
  selectCases,
  SPOOLED_ENCODING,
  type Anchor,
  type CaseId,
  type CaseResult,
  type GatewayCase,
  type RaceSetup,
  type Run,
} from './race.js';
import { queriesOf, runUser } from './trino-stats.js';
import type { Window } from './window.js';

/** The anchors that run in a forked Node process of their own, and how each is started. */
const FORKED: Partial<Record<Anchor, (trinoUrl: string) => ForkedClient>> = {
  raw: (url) => forkClient('raw-client.ts', [url]),
  ceiling: (url) => forkClient('ceiling-client.ts', [url, 'none']),
  'ceiling@spool': (url) => forkClient('ceiling-client.ts', [url, SPOOLED_ENCODING]),
};

/** One size's race: its setup, window and SQL, and the processes measured (started for this size alone). */
interface Race {
  s: RaceSetup;
  w: Window;
  sql: string;
  gcases: GatewayCase[];
  forked: Map<CaseId, ForkedClient>;
  gateways: Map<CaseId, Gateway>;
}

/**
 * `warmups`: untimed rounds before the timed ones, of every case whose process lives across runs (the gateways,
 * the raw client, the ceilings), so that what is timed is a warm server (V8's optimized code, a warm Trino), as
 * a running gateway is; the CLI and python start a process per run, as their users do, and are not warmed.
 */
export async function raceSize(
  s: RaceSetup,
  w: Window,
  reps: number,
  profile = false,
  only?: readonly string[],
  warmups = 0,
): Promise<CaseResult[]> {
  const { anchors, gateway: gcases } = selectCases(s.features, only);
  if (!anchors.includes('raw')) throw new Error('every race needs the raw client: ratios are to it');
  if (gcases.length === 0)
    throw new Error('every race needs a gateway case: the SQL all clients run is its explain=true');
  const race: Race = { s, w, sql: '', gcases, forked: new Map(), gateways: new Map() };
  const users = new Map<CaseId, string>();
  try {
    for (const a of anchors) {
      const start = FORKED[a];
      if (start) race.forked.set(a, start(s.trinoUrl));
    }
    await startGateways(race, users, profile);
    await Promise.all([...race.forked.values()].map((c) => c.ready));
    await new Promise((r) => setTimeout(r, 500)); // settle after module loading, so idle RSS means something
    const pidOf = (id: CaseId) => race.forked.get(id)?.pid ?? race.gateways.get(id)?.pid;
    const ids: CaseId[] = [...anchors, ...gcases.map(caseId)];
    const idle = new Map(ids.flatMap((id) => (pidOf(id) ? [[id, currentRss(pidOf(id)!)] as const] : [])));
    const single = race.gateways.values().next().value!;
    const explain = eventsPath(s.topic, w, { format: 'ndjson', parallel: 1, spooled: false }, s.features);
    race.sql = (await getJson<{ sql: string }>(`${single.url}${explain}&explain=true`)).sql;
    const warmed = ids.filter((id) => pidOf(id) !== undefined);
    for (let i = 0; i < warmups; i++) {
      for (const id of warmed) {
        const { run } = await runCase(race, id);
        s.log(`${w.rows} ${id.padEnd(13)} warm-up ${i + 1}/${warmups}: ${run.seconds.toFixed(2)}s`);
      }
    }
    const { runs, anchorPeak } = await repeat(race, ids, reps);
    const trino = await trinoQueries(s, users, reps + warmups);
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
    for (const c of race.forked.values()) await c.stop();
    for (const g of race.gateways.values()) await g.stop();
  }
}

/** One gateway per gateway case, one at a time: a loaded 2-core machine starts several tsx processes slower. */
async function startGateways(race: Race, users: Map<CaseId, string>, profile: boolean): Promise<void> {
  for (const g of race.gcases) {
    const id = caseId(g);
    const dir = join(ROOT, 'bench', 'profiles', `${race.w.rows}-${id}`);
    if (profile) rmSync(dir, { recursive: true, force: true });
    // A Trino user per gateway, so its queries can be counted afterwards.
    users.set(id, runUser(`race-${id.replace('@', '-')}`));
    const env = {
      ...race.s.gatewayEnv,
      TOPICGATE_TRINO_ENCODING: g.spooled ? SPOOLED_ENCODING : 'none',
      TOPICGATE_TRINO_USER: users.get(id)!,
    };
    race.gateways.set(id, await startGateway(env, profile ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []));
  }
}

/** Every case `reps` times, round-robin, starting one case later each repetition to spread other load evenly. */
async function repeat(
  race: Race,
  ids: CaseId[],
  reps: number,
): Promise<{ runs: Map<CaseId, Run[]>; anchorPeak: Map<CaseId, number> }> {
  const runs = new Map<CaseId, Run[]>(ids.map((id) => [id, []]));
  const anchorPeak = new Map<CaseId, number>();
  // The bench's Trino is the local one, so its CPU per run can be read beside the client's.
  const trinoPid = serverPids(layout())[0];
  for (let rep = 0; rep < reps; rep++) {
    for (const id of ids.map((_, i) => ids[(i + rep) % ids.length]!)) {
      const trinoCpu0 = trinoPid ? cpuSeconds(trinoPid) : 0;
      const ticks0 = machineTicks();
      const { run, peakRssBytes } = await runCase(race, id);
      if (peakRssBytes !== undefined) anchorPeak.set(id, Math.max(anchorPeak.get(id) ?? 0, peakRssBytes));
      if (trinoPid) run.trinoCpu = cpuSeconds(trinoPid) - trinoCpu0;
      run.machineBusy = busyShare(ticks0, machineTicks());
      if (run.rows !== race.w.rows) throw new Error(`${caseLabel(id)} read ${run.rows} rows, expected ${race.w.rows}`);
      runs.get(id)!.push(run);
      race.s.log(
        `${race.w.rows} ${id.padEnd(13)} rep ${rep + 1}/${reps}: ${run.seconds.toFixed(2)}s ` +
          `${Math.round(run.rows / run.seconds)} rows/s, cpu ${run.cpu.toFixed(2)}s`,
      );
    }
  }
  return { runs, anchorPeak };
}

/** One run of one case; the CLI and python, one process per run, report their own CPU and peak RSS. */
async function runCase(race: Race, id: CaseId): Promise<{ run: Run; peakRssBytes?: number }> {
  const { s, w, sql } = race;
  if (id.startsWith('cli') || id.startsWith('python')) {
    const encoding = id.endsWith('@spool') ? SPOOLED_ENCODING.split(',')[0]! : 'none';
    const r = id.startsWith('cli')
      ? await runCli(s.trinoUrl, s.user, sql, join(tmpdir(), 'topicgate-bench'), encoding)
      : await runPython(s.trinoUrl, s.user, sql, encoding);
    return { run: { rows: r.rows, seconds: r.seconds, cpu: r.cpu }, peakRssBytes: r.peakRssBytes };
  }
  const client = race.forked.get(id);
  const pid = (client ?? race.gateways.get(id)!).pid;
  const cpu0 = cpuSeconds(pid);
  if (client) {
    const r = await client.run(sql, s.user);
    return { run: { rows: r.rows, seconds: r.seconds, cpu: cpuSeconds(pid) - cpu0 } };
  }
  const g = race.gcases.find((c) => caseId(c) === id)!;
  const r = await readGateway(
    `${race.gateways.get(id)!.url}${eventsPath(s.topic, w, g, s.features)}`,
    g.format,
    w.rows,
  );
  return {
    run: {
      rows: r.rows,
      seconds: r.seconds,
      cpu: cpuSeconds(pid) - cpu0,
      bytes: r.bytes,
      firstSeconds: r.firstSeconds,
    },
  };
}

/** Each gateway's Trino queries per response and the rows they read, from Trino's query statistics. */
async function trinoQueries(
  s: RaceSetup,
  users: Map<CaseId, string>,
  reps: number,
): Promise<Map<CaseId, { queries: number; rowsRead: number }>> {
  const trino = new Map<CaseId, { queries: number; rowsRead: number }>();
  for (const [id, user] of users) {
    const qs = await queriesOf(s.trinoUrl, user, s.tableText);
    trino.set(id, { queries: qs.length / reps, rowsRead: qs.reduce((n, q) => n + q.rowsRead, 0) / reps });
  }
  return trino;
}
