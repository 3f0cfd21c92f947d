/**
 * The settings, read once at start-up: the environment by the settings table, and the config file by its schema
 * (config/); then the checks that need another stage's grammar (declared expansions, row-policy filters) and the
 * checks across settings. Every problem is named at once; the result is frozen.
 */
import { checkExpansion } from '../blob/json/expansion.js';
import { parseRowFilter } from '../access/row-filter.js';
import { checkAccessConfig, limitsOf, splitRowPolicies } from '../config/access-schema.js';
import { ConfigError, readConfigFile, type Config, type ConfigFile } from '../config/config.js';
import { loadsSettingsOf } from '../config/loads-settings.js';
import { readSettings } from '../config/read-settings.js';
import { payloadProblems, registrySettings } from '../config/registry-config.js';
import type { Settings } from '../config/settings.js';

/** Reads and validates the settings; throws ConfigError naming every bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const { configFile: fileName, schemaRegistryUrl, ...settings } = readSettings(env, problems);
  const configFile = fileName || undefined;
  const file = configFile ? readConfigFile(configFile, problems) : {};
  const inFile = (p: string) => `TOPICGATE_CONFIG=${configFile}: ${p}`;
  for (const [topic, t] of Object.entries(file.topics ?? {})) problems.push(...checkExpansion(topic, t).map(inFile));
  const registry = registrySettings(file.schemaRegistry, schemaRegistryUrl, problems);
  for (const [topic, t] of Object.entries(file.topics ?? {})) problems.push(...payloadProblems(topic, t, registry));
  problems.push(...trinoCredentialProblems(settings));
  problems.push(
    ...[...checkAccessConfig(file), ...rowFilterProblems(file), ...impersonationProblems(settings, file)].map(inFile),
  );
  if (problems.length) throw new ConfigError(problems);
  const rows = splitRowPolicies(file.rowPolicies);
  const config: Config = {
    ...settings,
    defaultLimit: Math.min(settings.defaultLimit, settings.maxLimit),
    historyRetentionMs: settings.historyRetentionDays * 86_400_000,
    configFile,
    topics: file.topics ?? {},
    auth: file.auth,
    access: file.access,
    rowPolicies: rows.policies,
    rowPoliciesDefault: rows.default,
    limits: limitsOf(file.limits),
    schemaRegistry: registry,
    loads: loadsSettingsOf(file.loads),
  };
  return deepFreeze(config);
}

/** One way to authenticate to Trino, and only over https (a secret never travels in clear). */
function trinoCredentialProblems(s: Omit<Settings, 'configFile' | 'schemaRegistryUrl'>): string[] {
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

/**
 * Under impersonation an API key's principal is its Trino user (query/planner.ts trinoUser): one named like the
 * gateway's own user would run with the gateway's rights (Trino lets a user act as itself without any rule).
 */
function impersonationProblems(s: Pick<Settings, 'trinoImpersonate' | 'trinoUser'>, file: ConfigFile): string[] {
  if (!s.trinoImpersonate) return [];
  return (file.auth?.apiKeys ?? []).flatMap((k, i) =>
    k.principal === s.trinoUser
      ? [
          `auth.apiKeys[${i}].principal: ${JSON.stringify(k.principal)} is the gateway's own Trino user (TOPICGATE_TRINO_USER); under TOPICGATE_TRINO_IMPERSONATE it would run with the gateway's rights`,
        ]
      : [],
  );
}

/** Each row policy's filter must parse, or no caller it binds could read the topic. */
function rowFilterProblems(file: ConfigFile): string[] {
  const problems: string[] = [];
  for (const [topic, rules] of Object.entries(splitRowPolicies(file.rowPolicies).policies)) {
    for (const [i, rule] of rules.entries()) {
      try {
        parseRowFilter(rule.filter);
      } catch (err) {
        problems.push(`rowPolicies.${topic}[${i}].filter: ${(err as Error).message}`);
      }
    }
  }
  return problems;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
