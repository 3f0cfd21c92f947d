/**
 * What start-up refuses (issue 10; API.md "Access"), as a pure function of the settings so it is tested alone:
 * - serving without an `auth` block on an address other than loopback, unless TOPICGATE_ALLOW_ANONYMOUS=true;
 * - the built-in development cursor secret on such an address (anyone could forge page and batch tokens);
 * - a cursor secret shorter than 32 bytes anywhere.
 * Problems are phrased like the other ConfigError problems: the variable first. No secret is ever repeated.
 */
import { isIP } from 'node:net';
import type { Config } from '../config/config.js';
import { DEV_CURSOR_SECRET } from '../config/settings.js';

const MIN_SECRET_BYTES = 32;

/** Is `host` (as TOPICGATE_HOST gives it) an address only this machine can reach? */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || h === '0:0:0:0:0:0:0:1';
  return false;
}

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
