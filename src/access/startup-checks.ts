/**
 * What start-up refuses (API.md "Access"), as a pure function of the settings so it is tested alone (and what it
 * only warns about, startupWarnings):
 * - serving without an `auth` block on an address other than loopback, unless TOPICGATE_ALLOW_ANONYMOUS=true;
 * - the built-in development cursor secret with an auth block or on such an address (anyone could forge tokens);
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
    // The development key is public: whoever reaches the port could seal any token (a presigned stream carrying
    // any roles and claims). It serves only a gateway that is open anyway: no auth block, on loopback.
    const why = config.auth
      ? 'when the config has an auth block'
      : !local
        ? `when TOPICGATE_HOST=${config.host} is not a loopback address`
        : null;
    if (why !== null) {
      problems.push(
        `TOPICGATE_CURSOR_SECRET must be set (at least ${MIN_SECRET_BYTES} random bytes, the same on every instance) ` +
          `${why}: the built-in development key is public`,
      );
    }
  } else if (secretBytes < MIN_SECRET_BYTES) {
    problems.push(`TOPICGATE_CURSOR_SECRET must be at least ${MIN_SECRET_BYTES} bytes (it has ${secretBytes})`);
  }
  return problems;
}

/** The warning of a gateway whose tokens the public development key seals (an open loopback one), or none. */
export function devKeyWarning(config: Pick<Config, 'cursorSecret'>): string | null {
  if (config.cursorSecret !== DEV_CURSOR_SECRET) return null;
  return (
    'TOPICGATE_CURSOR_SECRET is not set: tokens are sealed with the public development key, fit for an open ' +
    'loopback gateway only (set it before adding an auth block or another address)'
  );
}

/**
 * What start-up tells about but allows, one line each: row policies without `rowPolicies.default`, which is then
 * `deny` (a caller holding none of a topic's policy roles reads none of its rows). Configs written when the
 * default was `allow` change meaning, so the line says how to keep the old one.
 */
export function startupWarnings(config: Pick<Config, 'rowPolicies' | 'rowPoliciesDefault'>): string[] {
  if (config.rowPoliciesDefault !== undefined || Object.keys(config.rowPolicies).length === 0) return [];
  return [
    'rowPolicies.default is not set, so it is deny: a caller holding none of a topic policy roles reads none of ' +
      'its rows (the default was allow before; set rowPolicies.default: allow to let such callers read every row)',
  ];
}
