/**
 * All settings in one schema: read from the environment (and the optional per-topic config file) once at
 * start-up, validated, frozen. Names follow API.md "Settings".
 */
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { checkExpansion } from './blob/expansion.js';

export const DEFAULT_TRINO_URL = 'http://127.0.0.1:18080';
export const DEMO_SCHEMA = 'demo|kafka_topics';

const ExpandField = Type.Object(
  { path: Type.String({ minLength: 1 }), type: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

const TopicSettings = Type.Object(
  {
    expand: Type.Optional(Type.Record(Type.String({ pattern: '^.+$' }), ExpandField, { additionalProperties: false })),
    expansionTable: Type.Optional(Type.String({ minLength: 1 })),
    allowFullScan: Type.Optional(Type.Boolean()),
    maxLimit: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    topics: Type.Optional(
      Type.Record(Type.String({ pattern: '^.+$' }), TopicSettings, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export type TopicSettings = Static<typeof TopicSettings>;
export type ConfigFile = Static<typeof ConfigFileSchema>;

export interface Config {
  readonly trinoUrl: string;
  readonly trinoUser: string;
  readonly catalog: string;
  readonly schemas: readonly string[];
  readonly host: string;
  readonly port: number;
  readonly stateUrl: string;
  readonly configFile: string | undefined;
  readonly topics: Readonly<Record<string, TopicSettings>>;
  /** Default rows per response (API.md: 100). */
  readonly defaultLimit: number;
  /** Largest `limit` a request may ask for. */
  readonly maxLimit: number;
  /** Trino's query_max_run_time for every query, and the gateway's own deadline. */
  readonly queryTimeoutMs: number;
  readonly logLevel: string;
  /** Key that signs page cursors; instances behind one load balancer must share it. */
  readonly cursorSecret: string;
  /** The VAST catalog's vast.complex_predicate_pushdown: OR across columns is pushed (explain's labels). */
  readonly complexPushdown: boolean;
  /** Rows a non-JSON response may read ahead to make its Link header exact. */
  readonly prefetchRows: number;
  /** How long the history of committed cursor batches is kept. */
  readonly historyRetentionMs: number;
  /**
   * Guardrail: a topic query whose filters are all evaluated after the scan (JSON fields) must bound its time
   * window to at most this, unless the topic's config sets allowFullScan.
   */
  readonly residualScanMaxWindowMs: number;
  /** Schema inference: most events sampled, and widest window. */
  readonly inferMaxSample: number;
  readonly inferMaxWindowMs: number;
}

/** Raised when settings are invalid; `problems` names each bad setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

function intSetting(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number, problems: string[]) {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) {
    problems.push(`${name}=${JSON.stringify(raw)} must be an integer from ${min} to ${max}`);
    return dflt;
  }
  return n;
}

const DURATION_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function durationSetting(env: NodeJS.ProcessEnv, name: string, dflt: string, problems: string[]): number {
  const raw = env[name] || dflt;
  const m = /^(\d{1,9})(ms|s|m|h|d)$/.exec(raw.trim());
  if (!m || Number(m[1]) === 0) {
    problems.push(`${name}=${JSON.stringify(raw)} must be a duration like 30s, 15m, 12h, 7d`);
    return 0;
  }
  return Number(m[1]) * DURATION_MS[m[2] as keyof typeof DURATION_MS];
}

function boolSetting(env: NodeJS.ProcessEnv, name: string, dflt: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push(`${name}=${JSON.stringify(raw)} must be true or false`);
  return dflt;
}

function readConfigFile(file: string, problems: string[]): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`TOPICGATE_CONFIG=${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return {};
  }
  let doc: unknown;
  try {
    doc = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    problems.push(
      `TOPICGATE_CONFIG=${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'} (${(err as Error).message.split('\n')[0]})`,
    );
    return {};
  }
  doc ??= {};
  const errors = [...Value.Errors(ConfigFileSchema, doc)];
  for (const e of errors.slice(0, 5)) problems.push(`TOPICGATE_CONFIG=${file}: ${e.path || '/'} ${e.message}`);
  return errors.length ? {} : (doc as ConfigFile);
}

/** Reads and validates the settings; throws ConfigError naming every bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const trinoUrl = (env.TOPICGATE_TRINO_URL ?? DEFAULT_TRINO_URL).replace(/\/+$/, '');
  try {
    const u = new URL(trinoUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    problems.push(`TOPICGATE_TRINO_URL=${JSON.stringify(trinoUrl)} must be an http(s) URL`);
  }
  const schemas = (env.TOPICGATE_SCHEMAS ?? DEMO_SCHEMA)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (schemas.length === 0) problems.push('TOPICGATE_SCHEMAS must name at least one schema');
  const catalog = (env.TOPICGATE_CATALOG ?? 'vast').trim();
  if (!catalog) problems.push('TOPICGATE_CATALOG must not be empty');
  const stateUrl = env.TOPICGATE_STATE_URL ?? 'sqlite:./data/topicgate.db';
  if (!/^sqlite:.+/.test(stateUrl) && !/^postgres(ql)?:\/\/.+/.test(stateUrl)) {
    problems.push(`TOPICGATE_STATE_URL=${JSON.stringify(stateUrl)} must be sqlite:<file> or postgres://...`);
  }
  const configFile = env.TOPICGATE_CONFIG || undefined;
  const file = configFile ? readConfigFile(configFile, problems) : {};
  for (const [topic, settings] of Object.entries(file.topics ?? {})) {
    for (const p of checkExpansion(topic, settings)) problems.push(`TOPICGATE_CONFIG=${configFile}: ${p}`);
  }
  const maxLimit = intSetting(env, 'TOPICGATE_MAX_LIMIT', 10_000, 1, 10_000_000, problems);
  const config: Config = {
    trinoUrl,
    trinoUser: env.TOPICGATE_TRINO_USER || 'topicgate',
    catalog,
    schemas,
    host: env.TOPICGATE_HOST || '127.0.0.1',
    port: intSetting(env, 'TOPICGATE_PORT', 3000, 0, 65535, problems),
    stateUrl,
    configFile,
    topics: file.topics ?? {},
    defaultLimit: Math.min(intSetting(env, 'TOPICGATE_DEFAULT_LIMIT', 100, 1, 10_000_000, problems), maxLimit),
    maxLimit,
    queryTimeoutMs: intSetting(env, 'TOPICGATE_QUERY_TIMEOUT_MS', 120_000, 1_000, 86_400_000, problems),
    logLevel: env.TOPICGATE_LOG_LEVEL || 'info',
    cursorSecret: env.TOPICGATE_CURSOR_SECRET || 'topicgate-page-cursors',
    complexPushdown: boolSetting(env, 'TOPICGATE_COMPLEX_PUSHDOWN', false, problems),
    prefetchRows: intSetting(env, 'TOPICGATE_PREFETCH_ROWS', 10_000, 0, 10_000_000, problems),
    historyRetentionMs: intSetting(env, 'TOPICGATE_CURSOR_HISTORY_DAYS', 7, 1, 3650, problems) * 86_400_000,
    residualScanMaxWindowMs: durationSetting(env, 'TOPICGATE_RESIDUAL_SCAN_MAX_WINDOW', '7d', problems),
    inferMaxSample: intSetting(env, 'TOPICGATE_INFER_MAX_SAMPLE', 10_000, 1, 1_000_000, problems),
    inferMaxWindowMs: durationSetting(env, 'TOPICGATE_INFER_MAX_WINDOW', '7d', problems),
  };
  if (problems.length) throw new ConfigError(problems);
  return deepFreeze(config);
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
