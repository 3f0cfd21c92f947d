/**
 * The config file's schema (per-topic settings, access, the Schema Registry) and the Config type: the environment
 * settings (settings.ts) and the config file, read once at start-up (server/load-config.ts), validated, frozen.
 * Names follow API.md "Settings".
 */
import { readFileSync } from 'node:fs';
import { Type, type Static } from 'typebox';
import { DURATION_PATTERN, durationMs } from '../core/duration.js';
import { parse as parseYaml } from 'yaml';
import type { Settings } from './settings.js';
import {
  AccessSchema,
  AuthSchema,
  LimitsSchema,
  RowPoliciesSchema,
  type AccessRule,
  type AuthSettings,
  type Limits,
  type RowPolicyDefault,
  type RowPolicyRule,
} from './access-schema.js';
import { LoadsSchema, type LoadsSettings } from './loads-settings.js';
import { PayloadSettingsSchema, SchemaRegistrySchema, type SchemaRegistrySettings } from './registry-config.js';
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
    /**
     * API.md "Caching settled windows": events older than this can no longer change (they are visible), so a read
     * whose window ends before now minus it may be cached. Default DEFAULT_SETTLE.
     */
    settle: Type.Optional(Type.String({ pattern: DURATION_PATTERN })),
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
    // API.md "Loads run by Trino": where loads may write.
    loads: Type.Optional(LoadsSchema),
  },
  { additionalProperties: false },
);

export type TopicSettings = Static<typeof TopicSettings>;

/** How long after its broker time an event is settled, when neither the topic nor a cursor says. */
export const DEFAULT_SETTLE = '30s';

/** A topic's settle time in ms (`topics.<t>.settle`, else DEFAULT_SETTLE); the schema checked its grammar. */
export function settleMsOf(settings: TopicSettings | undefined): number {
  return durationMs(settings?.settle ?? DEFAULT_SETTLE) ?? 0;
}

export type ConfigFile = Static<typeof ConfigFileSchema>;

/**
 * The settings in force: the environment's (the config file's name and the registry URL read into `configFile` and
 * `schemaRegistry`) and the config file's.
 */
export type Config = Readonly<
  Omit<Settings, 'configFile' | 'schemaRegistryUrl'> & {
    readonly configFile: string | undefined;
    readonly topics: Readonly<Record<string, TopicSettings>>;
    /** API.md "Access": undefined auth means every route is open (start-up allows that only on loopback). */
    readonly auth: AuthSettings | undefined;
    readonly access: readonly AccessRule[] | undefined;
    /** The topics' row policies, by topic id (`rowPolicies` without `default`). */
    readonly rowPolicies: Readonly<Record<string, readonly RowPolicyRule[]>>;
    /** `rowPolicies.default`; undefined (not set) is `deny`. */
    readonly rowPoliciesDefault: RowPolicyDefault | undefined;
    readonly limits: Limits;
    /** The Schema Registry of Avro / json-sr topics; undefined when none is configured. */
    readonly schemaRegistry: SchemaRegistrySettings | undefined;
    /** historyRetentionDays in ms. */
    readonly historyRetentionMs: number;
    /** `loads` with its defaults: the schemas loads may write in. */
    readonly loads: LoadsSettings;
  }
>;

/** Raised when settings are invalid; `problems` names each bad setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** The config file, parsed (YAML, or JSON by its name) and checked against its schema; problems pushed. */
export function readConfigFile(file: string, problems: string[]): ConfigFile {
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
