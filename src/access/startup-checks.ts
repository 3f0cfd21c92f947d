/**
 * What start-up refuses (API.md "Access"), as a pure function of the settings so it is tested alone (and what it
 * only warns about, startupWarnings):
 * - serving without an `auth` block on an address other than loopback, unless TOPICGATE_ALLOW_ANONYMOUS=true;
 * - the built-in development cursor secret on such an address (anyone could forge page and batch tokens);
 * - a cursor secret shorter than 32 bytes anywhere.
 * Problems are phrased like the other ConfigError problems: the variable first. No secret is ever repeated.
 */
import type { Config } from '../config/config.js';
import { isLoopback } from '../config/is-loopback.js';
import { DEV_CURSOR_SECRET } from '../config/serving-settings.js';

const MIN_SECRET_BYTES = 32;

/** What start-up refuses for these settings, one problem each (none: it may start). */
export function startupProblems(config: Pick<Config, 'host' | 'auth' | 'allowAnonymous' | 'cursorSecret'>): string[] {
  const problems: string[] = [];
  const local = isLoopback(config.host);
  if (!local && !config.auth && !config.allowAnonymous) {
    problems.push(
      `TOPICGATE_HOST=${config.host} is not a loopback address and the config has no auth block: add one to ` +
        'TOPICGATE_CONFIG, or set TOPICGATE_ALLOW_ANONYMOUS=true to let anyone who can reach it read every topic',
    );
  }
  const secretBytes = Buffer.byteLength(config.cursorSecret, 'utf8');
  if (config.cursorSecret === DEV_CURSOR_SECRET) {
    if (!local) {
      problems.push(
        `TOPICGATE_CURSOR_SECRET must be set (at least ${MIN_SECRET_BYTES} random bytes, the same on every instance) ` +
          `when TOPICGATE_HOST=${config.host} is not a loopback address: the built-in development key is public`,
      );
    }
  } else if (secretBytes < MIN_SECRET_BYTES) {
    problems.push(`TOPICGATE_CURSOR_SECRET must be at least ${MIN_SECRET_BYTES} bytes (it has ${secretBytes})`);
  }
  return problems;
}

/**
 * What start-up warns about but allows, one line each: row policies without `rowPolicies.default`, where a caller
 * holding none of a topic's policy roles (a token whose `scope` was narrowed, say) reads every row of it.
 */
export function startupWarnings(config: Pick<Config, 'rowPolicies' | 'rowPoliciesDefault'>): string[] {
  if (config.rowPoliciesDefault !== undefined || Object.keys(config.rowPolicies).length === 0) return [];
  return [
    'rowPolicies.default is not set: a caller holding none of a topic policy roles reads it unrestricted (allow); ' +
      'set rowPolicies.default: deny (recommended) or allow',
  ];
}
