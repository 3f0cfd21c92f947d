/**
 * Long file: it is the table of every setting (one entry each) and the one reader of it.
 *
 * All settings in one schema: read from the environment (and the optional per-topic config file) once at
 * start-up, validated, frozen. Names follow API.md "Settings".
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { checkExpansion } from './blob/expansion.js';
import { durationMs } from './duration.js';
import {
  AccessSchema,
  AuthSchema,
  LimitsSchema,
  RowPoliciesSchema,
  checkAccessConfig,
  limitsOf,
  type AccessRule,
  type AuthSettings,
  type Limits,
  type RowPolicyRule,
} from './access/access-schema.js';

export const DEFAULT_TRINO_URL = 'http://127.0.0.1:18080';
export const DEMO_SCHEMA = 'demo|kafka_topics';
/** The cursor secret used when none is set: fine on a laptop, refused on any other address (access/startup-checks). */
export const DEV_CURSOR_SECRET = 'topicgate-page-cursors';

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
    /** Trino session properties of every query on this topic (API.md "Trino connection"), e.g. VAST settings. */
    session: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?$' }),
        Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
        { additionalProperties: false },
      ),
    ),
    /** Client tags added to every query on this topic, for Trino resource-group selectors. */
    tags: Type.Optional(Type.Array(Type.String({ pattern: '^[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e]+$' }))),
    /** Bulk reads: time slices read at once by default, and at most (API.md "Bulk reads"). */
    parallel: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    maxParallel: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
  },
  { additionalProperties: false },
);

export const ConfigFileSchema = Type.Object(
  {
    topics: Type.Optional(
      Type.Record(Type.String({ pattern: '^.+$' }), TopicSettings, { additionalProperties: false }),
    ),
    // API.md "Access".
    auth: Type.Optional(AuthSchema),
    access: Type.Optional(AccessSchema),
    rowPolicies: Type.Optional(RowPoliciesSchema),
    limits: Type.Optional(LimitsSchema),
  },
  { additionalProperties: false },
);

export type TopicSettings = Static<typeof TopicSettings>;
export type ConfigFile = Static<typeof ConfigFileSchema>;

/**
 * The environment settings, one schema: each property names its variable (`env`), how its text is read
 * (`read`), its default and bounds. loadConfig walks it; the Config type is derived from it, so a setting is
 * declared once.
 */
type Read =
  | 'text'
  | 'trimmed'
  | 'url'
  | 'list'
  | 'secrets'
  | 'int'
  | 'bool'
  | 'duration'
  | 'state-url'
  | 'file'
  | 'origins'
  | 'hosts';
interface SettingOptions {
  env: string;
  read: Read;
  /** The text used when the variable is unset (and, unless `blankIsValue`, when it is empty). */
  fallback?: string;
  /** An empty value is read as given (and then refused) instead of meaning the default. */
  blankIsValue?: boolean;
  description: string;
}
const text = (o: SettingOptions) => Type.String(o);
const int = (o: SettingOptions & { minimum: number; maximum: number }) => Type.Integer(o);

export const SettingsSchema = Type.Object({
  trinoUrl: text({
    env: 'TOPICGATE_TRINO_URL',
    read: 'url',
    fallback: DEFAULT_TRINO_URL,
    blankIsValue: true,
    description: 'Trino coordinator',
  }),
  trinoUser: text({
    env: 'TOPICGATE_TRINO_USER',
    read: 'text',
    fallback: 'topicgate',
    description: 'user sent to Trino',
  }),
  /** PEM bundle trusted for Trino's certificate instead of Node's bundled CAs (https only). */
  trinoCaFile: text({
    env: 'TOPICGATE_TRINO_CA_FILE',
    read: 'file',
    fallback: '',
    description: 'PEM bundle to verify the certificate of an https Trino',
  }),
  /** Password of TOPICGATE_TRINO_USER (HTTP basic over https); never logged. */
  trinoPassword: text({
    env: 'TOPICGATE_TRINO_PASSWORD',
    read: 'text',
    fallback: '',
    description: 'password of the Trino user',
  }),
  trinoPasswordFile: text({
    env: 'TOPICGATE_TRINO_PASSWORD_FILE',
    read: 'file',
    fallback: '',
    description: 'a file holding the password of the Trino user',
  }),
  /** A bearer token for Trino, read from this file and again whenever it changes (a rotated secret). */
  trinoTokenFile: text({
    env: 'TOPICGATE_TRINO_TOKEN_FILE',
    read: 'file',
    fallback: '',
    description: 'a file holding a bearer token for Trino',
  }),
  /** Queries run as the caller's principal (X-Trino-User); the gateway authenticates as TOPICGATE_TRINO_USER. */
  trinoImpersonate: Type.Boolean({
    env: 'TOPICGATE_TRINO_IMPERSONATE',
    read: 'bool',
    fallback: 'false',
    description: "queries run in Trino as the caller's principal",
  }),
  catalog: text({
    env: 'TOPICGATE_CATALOG',
    read: 'trimmed',
    fallback: 'vast',
    blankIsValue: true,
    description: 'catalog of the topic tables',
  }),
  schemas: Type.Array(Type.String(), {
    env: 'TOPICGATE_SCHEMAS',
    read: 'list',
    fallback: DEMO_SCHEMA,
    blankIsValue: true,
    description: 'comma-separated schemas to serve',
  }),
  host: text({ env: 'TOPICGATE_HOST', read: 'text', fallback: '127.0.0.1', description: 'where the API listens' }),
  port: int({
    env: 'TOPICGATE_PORT',
    read: 'int',
    fallback: '3000',
    minimum: 0,
    maximum: 65535,
    description: 'where the API listens',
  }),
  stateUrl: text({
    env: 'TOPICGATE_STATE_URL',
    read: 'state-url',
    fallback: 'sqlite:./data/topicgate.db',
    blankIsValue: true,
    description: 'cursor store: sqlite:<file> or postgres://...',
  }),
  /** Bound on connecting to the PostgreSQL cursor store and on each statement there. */
  stateTimeoutMs: int({
    env: 'TOPICGATE_STATE_TIMEOUT_MS',
    read: 'int',
    fallback: '5000',
    minimum: 100,
    maximum: 600_000,
    description: 'time limit of connecting to the cursor store and of each of its statements',
  }),
  /** On SIGTERM, running responses may finish for this long; then they are cut and their queries cancelled. */
  shutdownGraceMs: int({
    env: 'TOPICGATE_SHUTDOWN_GRACE_MS',
    read: 'int',
    fallback: '20000',
    minimum: 0,
    maximum: 3_600_000,
    description: 'time running responses may take to finish on SIGTERM',
  }),
  /** Largest `limit` a request may ask for. */
  maxLimit: int({
    env: 'TOPICGATE_MAX_LIMIT',
    read: 'int',
    fallback: '10000',
    minimum: 1,
    maximum: 10_000_000,
    description: 'rows per response at most',
  }),
  /** Default rows per response (API.md: 100); never above maxLimit. */
  defaultLimit: int({
    env: 'TOPICGATE_DEFAULT_LIMIT',
    read: 'int',
    fallback: '100',
    minimum: 1,
    maximum: 10_000_000,
    description: 'rows per response by default',
  }),
  /** Trino's query_max_run_time for every query, and the gateway's own deadline. */
  queryTimeoutMs: int({
    env: 'TOPICGATE_QUERY_TIMEOUT_MS',
    read: 'int',
    fallback: '120000',
    minimum: 1_000,
    maximum: 86_400_000,
    description: 'time limit of every query',
  }),
  logLevel: text({ env: 'TOPICGATE_LOG_LEVEL', read: 'text', fallback: 'info', description: 'pino log level' }),
  /** Key that signs page cursors and batch tokens; instances behind one load balancer must share it. */
  cursorSecret: text({
    env: 'TOPICGATE_CURSOR_SECRET',
    read: 'text',
    fallback: DEV_CURSOR_SECRET,
    description: 'key that signs page cursors and batch tokens',
  }),
  /** Earlier signing keys, still accepted for tokens issued before a rotation (comma-separated). */
  cursorPreviousSecrets: Type.Array(Type.String(), {
    env: 'TOPICGATE_CURSOR_PREVIOUS_SECRETS',
    read: 'secrets',
    fallback: '',
    description: 'earlier cursor secrets that still verify',
  }),
  /** The VAST catalog's vast.complex_predicate_pushdown: OR across columns is pushed (explain's labels). */
  complexPushdown: Type.Boolean({
    env: 'TOPICGATE_COMPLEX_PUSHDOWN',
    read: 'bool',
    fallback: 'false',
    description: 'OR across columns is pushed',
  }),
  /** Rows a non-JSON response may read ahead to make its Link header exact. */
  prefetchRows: int({
    env: 'TOPICGATE_PREFETCH_ROWS',
    read: 'int',
    fallback: '10000',
    minimum: 0,
    maximum: 10_000_000,
    description: 'rows a page may read ahead',
  }),
  /** How long the history of committed cursor batches is kept. */
  historyRetentionDays: int({
    env: 'TOPICGATE_CURSOR_HISTORY_DAYS',
    read: 'int',
    fallback: '7',
    minimum: 1,
    maximum: 3650,
    description: 'how long committed batches are listed',
  }),
  /**
   * Guardrail: a topic query whose filters are all evaluated after the scan (JSON fields) must bound its time
   * window to at most this, unless the topic's config sets allowFullScan.
   */
  residualScanMaxWindowMs: int({
    env: 'TOPICGATE_RESIDUAL_SCAN_MAX_WINDOW',
    read: 'duration',
    fallback: '7d',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'widest window of a residual-only scan',
  }),
  /** Schema inference: most events sampled, and widest window. */
  inferMaxSample: int({
    env: 'TOPICGATE_INFER_MAX_SAMPLE',
    read: 'int',
    fallback: '10000',
    minimum: 1,
    maximum: 1_000_000,
    description: 'most events inference samples',
  }),
  inferMaxWindowMs: int({
    env: 'TOPICGATE_INFER_MAX_WINDOW',
    read: 'duration',
    fallback: '7d',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'widest window inference samples',
  }),
  /** Serve without an `auth` block on an address other than loopback (access/startup-checks). */
  allowAnonymous: Type.Boolean({
    env: 'TOPICGATE_ALLOW_ANONYMOUS',
    read: 'bool',
    fallback: 'false',
    description: 'serve every route to anyone on a non-loopback address',
  }),
  /** Browser origins allowed to call the API (CORS); none: CORS is off. */
  corsOrigins: Type.Array(Type.String(), {
    env: 'TOPICGATE_CORS_ORIGINS',
    read: 'origins',
    fallback: '',
    description: 'comma-separated origins allowed by CORS',
  }),
  /** Host header values answered; none: any (the Host check is off). */
  allowedHosts: Type.Array(Type.String(), {
    env: 'TOPICGATE_ALLOWED_HOSTS',
    read: 'hosts',
    fallback: '',
    description: 'comma-separated Host header values answered',
  }),
  /** The whole request (headers and body) must arrive within this, so a slowly sent one cannot hold a connection. */
  requestTimeoutMs: int({
    env: 'TOPICGATE_REQUEST_TIMEOUT',
    read: 'duration',
    fallback: '30s',
    minimum: 1,
    maximum: 3_600_000,
    description: 'time to receive a whole request',
  }),
  /** A connection with no traffic either way for this long is closed (longer than any query may run). */
  connectionTimeoutMs: int({
    env: 'TOPICGATE_CONNECTION_TIMEOUT',
    read: 'duration',
    fallback: '10m',
    minimum: 1,
    maximum: 86_400_000,
    description: 'idle time after which a connection is closed',
  }),
  keepAliveTimeoutMs: int({
    env: 'TOPICGATE_KEEP_ALIVE_TIMEOUT',
    read: 'duration',
    fallback: '72s',
    minimum: 1,
    maximum: 3_600_000,
    description: 'idle time of a kept-alive connection between requests',
  }),
  /** A response its client stops reading for this long is cut, and its Trino query cancelled. */
  writeIdleTimeoutMs: int({
    env: 'TOPICGATE_WRITE_IDLE_TIMEOUT',
    read: 'duration',
    fallback: '60s',
    minimum: 1,
    maximum: 86_400_000,
    description: 'time a client may stop reading a response',
  }),
  /** Under-pressure: an event loop this late refuses new requests with 503 TG_OVERLOADED; 0 turns the check off. */
  maxEventLoopDelayMs: int({
    env: 'TOPICGATE_MAX_EVENT_LOOP_DELAY_MS',
    read: 'int',
    fallback: '5000',
    minimum: 0,
    maximum: 600_000,
    description: 'event loop delay that sheds load',
  }),
});

export type Settings = Static<typeof SettingsSchema>;

export type Config = Readonly<
  Settings & {
    readonly configFile: string | undefined;
    readonly topics: Readonly<Record<string, TopicSettings>>;
    /** API.md "Access": undefined auth means every route is open (start-up allows that only on loopback). */
    readonly auth: AuthSettings | undefined;
    readonly access: readonly AccessRule[] | undefined;
    readonly rowPolicies: Readonly<Record<string, readonly RowPolicyRule[]>>;
    readonly limits: Limits;
    /** historyRetentionDays in ms. */
    readonly historyRetentionMs: number;
  }
>;

/** Raised when settings are invalid; `problems` names each bad setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

const splitList = (raw: string) =>
  raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);

/**
 * `https://user:secret@host/` -> `https://user:***@host/`: the userinfo of a URL (or of text that only looks like
 * one) without its password, so a problem or a log line can name the URL.
 */
export function redactUserinfo(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^/?#]*)@/, (_m, scheme: string | undefined, info: string) => {
    const colon = info.indexOf(':');
    return `${scheme ?? ''}${colon >= 0 ? `${info.slice(0, colon)}:***` : '***'}@`;
  });
}

/** Reads one setting's text as its schema says; a problem names the variable and what it must be. */
function readSetting(schema: TSchema & SettingOptions, raw: string, problems: string[]): unknown {
  const { env: name } = schema;
  // A URL may carry a password: it is never repeated in a problem.
  const shown = schema.read === 'url' || schema.read === 'state-url' ? redactUserinfo(raw) : raw;
  const bad = (what: string) => void problems.push(`${name}=${JSON.stringify(shown)} ${what}`);
  switch (schema.read) {
    case 'text':
      return raw;
    case 'trimmed': {
      const v = raw.trim();
      if (!v) problems.push(`${name} must not be empty`);
      return v;
    }
    case 'url': {
      const v = raw.replace(/\/+$/, '');
      if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) bad('must be an http(s) URL');
      return v;
    }
    case 'list': {
      const v = splitList(raw);
      if (v.length === 0) problems.push(`${name} must name at least one schema`);
      return v;
    }
    case 'secrets':
      return splitList(raw);
    case 'int': {
      const { minimum, maximum } = schema as unknown as { minimum: number; maximum: number };
      const n = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || n < minimum || n > maximum)
        bad(`must be an integer from ${minimum} to ${maximum}`);
      return n;
    }
    case 'bool':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      return bad('must be true or false');
    case 'duration': {
      const ms = durationMs(raw);
      if (!ms) bad('must be a duration like 30s, 15m, 12h, 7d');
      return ms;
    }
    case 'origins': {
      const v = splitList(raw);
      // An origin is scheme, host and port only: what a browser sends in `Origin`.
      if (v.some((o) => !URL.canParse(o) || new URL(o).origin !== o.replace(/\/$/, '')))
        bad('must be comma-separated origins like https://app.example or http://127.0.0.1:5173');
      return v.map((o) => o.replace(/\/$/, ''));
    }
    case 'hosts': {
      const v = splitList(raw).map((h) => h.toLowerCase());
      if (v.some((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(h)))
        bad('must be comma-separated host names, optionally with :port');
      return v;
    }
    case 'state-url':
      if (!/^sqlite:.+/.test(raw) && !/^postgres(ql)?:\/\/.+/.test(raw)) bad('must be sqlite:<file> or postgres://...');
      return raw;
    case 'file':
      // Unset is ''; a set path must be a readable file (the secret in it is read later, and never shown).
      if (raw !== '') {
        try {
          accessSync(raw, constants.R_OK);
        } catch (err) {
          problems.push(`${name}=${raw}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
        }
      }
      return raw;
  }
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
  const settings: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(SettingsSchema.properties)) {
    const o = schema as unknown as TSchema & SettingOptions;
    const raw = env[o.env];
    const unset = raw === undefined || (raw === '' && !o.blankIsValue);
    settings[key] = readSetting(o, unset ? (o.fallback ?? '') : raw, problems);
  }
  const configFile = env.TOPICGATE_CONFIG || undefined;
  const file = configFile ? readConfigFile(configFile, problems) : {};
  for (const [topic, topicSettings] of Object.entries(file.topics ?? {})) {
    for (const p of checkExpansion(topic, topicSettings)) problems.push(`TOPICGATE_CONFIG=${configFile}: ${p}`);
  }
  problems.push(...trinoCredentialProblems(settings as Settings));
  for (const p of checkAccessConfig(file)) problems.push(`TOPICGATE_CONFIG=${configFile}: ${p}`);
  if (problems.length) throw new ConfigError(problems);
  const s = settings as Settings;
  const config: Config = {
    ...s,
    defaultLimit: Math.min(s.defaultLimit, s.maxLimit),
    historyRetentionMs: s.historyRetentionDays * 86_400_000,
    configFile,
    topics: file.topics ?? {},
    auth: file.auth,
    access: file.access,
    rowPolicies: file.rowPolicies ?? {},
    limits: limitsOf(file.limits),
  };
  return deepFreeze(config);
}

/** One way to authenticate to Trino, and only over https (a secret never travels in clear). */
function trinoCredentialProblems(s: Settings): string[] {
  const set = [
    s.trinoPassword && 'TOPICGATE_TRINO_PASSWORD',
    s.trinoPasswordFile && 'TOPICGATE_TRINO_PASSWORD_FILE',
    s.trinoTokenFile && 'TOPICGATE_TRINO_TOKEN_FILE',
  ].filter((x): x is string => Boolean(x));
  if (set.length > 1) return [`${set.join(' and ')}: set one way to authenticate to Trino, not ${set.length}`];
  if (set.length === 1 && typeof s.trinoUrl === 'string' && s.trinoUrl.startsWith('http://')) {
    return [`${set[0]} needs an https:// TOPICGATE_TRINO_URL (credentials are never sent in clear)`];
  }
  return [];
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
