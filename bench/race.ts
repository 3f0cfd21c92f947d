/**
 * The race: every client reads the same window of the same topic, one result size at a time. Cases: the ceiling
 * (Trino's client protocol read and thrown away, rows counted but never parsed: bench/ceiling-client.ts), the Trino
 * CLI (CSV to a file), the python `trino` client (fetchmany), the raw trino-client in Node, and the gateway in
 * NDJSON, CSV and Arrow, as one stream and with `parallel=2` and `4`; the ceiling, the CLI, python and the gateway
 * each over the direct protocol and over spooled results (`@spool`: json+zstd; the raw trino-client speaks only the
 * direct protocol). The anchors run the SQL text the gateway's single stream runs (its `explain=true`), so Trino
 * does the same work for all. Every long-lived measured process (the ceiling and raw clients, one gateway per
 * gateway case) is started fresh for each size, so its peak RSS is that of the size alone; the CLI and python
 * report their own (one process per run). bench/race-size.ts runs one size.
 */
import type { Format } from './gateway.js';
import type { Window } from './window.js';

export const FORMATS: Format[] = ['ndjson', 'csv', 'arrow'];
export type Anchor = 'ceiling' | 'ceiling@spool' | 'cli' | 'cli@spool' | 'python' | 'python@spool' | 'raw';
export const ANCHORS: Anchor[] = ['ceiling', 'ceiling@spool', 'cli', 'cli@spool', 'python', 'python@spool', 'raw'];
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
  ceiling: 'Trino protocol ceiling (rows not parsed)',
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

/** The ceiling a case is held against: that of the same protocol (direct or spooled). */
export const ceilingOf = (id: CaseId): CaseId => (id.endsWith('@spool') ? 'ceiling@spool' : 'ceiling');
