/**
 * The settings, read once at start-up: the environment by the table in settings.ts, and the config file (per-topic
 * settings, access) by its schema here; validated, frozen. Names follow API.md "Settings". Long file: the config
 * file's schema and every check across settings sit beside the one reader.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { Type, type Static, type TSchema } from 'typebox';
import { parse as parseYaml } from 'yaml';
import { checkExpansion } from '../blob/json/expansion.js';
import { durationMs } from '../core/duration.js';
import { SettingsSchema, TRINO_ENCODINGS, type SettingOptions, type Settings } from './settings.js';
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
} from './access-schema.js';
import {
  PayloadSettingsSchema,
  SchemaRegistrySchema,
  payloadProblems,
  registrySettings,
  type SchemaRegistrySettings,
} from './registry-config.js';
import { schemaProblems } from './schema-problems.js';

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
    /** API.md "Schema Registry payloads": how `key` and `value` are framed (default raw). */
    key: Type.Optional(PayloadSettingsSchema),
    value: Type.Optional(PayloadSettingsSchema),
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
    schemaRegistry: Type.Optional(SchemaRegistrySchema),
  },
  { additionalProperties: false },
);

export type TopicSettings = Static<typeof TopicSettings>;
export type ConfigFile = Static<typeof ConfigFileSchema>;

export type Config = Readonly<
  Settings & {
    readonly configFile: string | undefined;
    readonly topics: Readonly<Record<string, TopicSettings>>;
    /** API.md "Access": undefined auth means every route is open (start-up allows that only on loopback). */
    readonly auth: AuthSettings | undefined;
    readonly access: readonly AccessRule[] | undefined;
    readonly rowPolicies: Readonly<Record<string, readonly RowPolicyRule[]>>;
    readonly limits: Limits;
    /** The Schema Registry of Avro / json-sr topics; undefined when none is configured. */
    readonly schemaRegistry: SchemaRegistrySettings | undefined;
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
  const shown = ['url', 'optional-url', 'state-url'].includes(schema.read) ? redactUserinfo(raw) : raw;
  const bad = (what: string) => void problems.push(`${name}=${JSON.stringify(shown)} ${what}`);
  switch (schema.read) {
    case 'text':
      return raw;
    case 'trimmed': {
      const v = raw.trim();
      if (!v) problems.push(`${name} must not be empty`);
      return v;
    }
    case 'optional-url':
    case 'url': {
      if (schema.read === 'optional-url' && raw === '') return '';
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
    case 'encodings': {
      const v = splitList(raw.toLowerCase());
      if (v.length === 1 && v[0] === 'none') return [];
      const known = new Set<string>(TRINO_ENCODINGS);
      if (v.length === 0 || v.some((e) => !known.has(e)) || new Set(v).size !== v.length)
        bad(`must be none, or some of ${TRINO_ENCODINGS.join(', ')} (comma-separated, each once)`);
      return v;
    }
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
  const errors = schemaProblems(ConfigFileSchema, doc);
  for (const e of errors.slice(0, 5)) problems.push(`TOPICGATE_CONFIG=${file}: ${e}`);
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
  const registry = registrySettings(file.schemaRegistry, env.TOPICGATE_SCHEMA_REGISTRY_URL, problems);
  for (const [topic, t] of Object.entries(file.topics ?? {})) problems.push(...payloadProblems(topic, t, registry));
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
    schemaRegistry: registry,
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
