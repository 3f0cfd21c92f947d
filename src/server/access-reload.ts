/**
 * A reload of the access blocks (`auth`, `access`, `rowPolicies`) of the TOPICGATE_CONFIG file, on SIGHUP as
 * daemons do: the file is read and checked as at start-up (its schema, the row-policy filters, the start-up
 * refusals, the policies against the served tables); a file with a problem changes nothing and is named in one log
 * line. A good one is put in force whole (access/access-holder.ts): every later request, and every open follow at
 * its next check (http/follow-access.ts), sees the new grants, policies and credentials. The rest of the file
 * (topics, limits, the registry) and the environment stay as started: they shape services built once.
 */
import type { FastifyInstance } from 'fastify';
import { createAccess, type Access } from '../access/create-access.js';
import { startupProblems } from '../access/startup-checks.js';
import { ConfigError, type Config } from '../config/config.js';

export interface ReloadOptions {
  /** Reads and checks the settings as start-up does (server/load-config.ts); throws ConfigError. */
  load(): Config;
  /** Problems of `access`'s row policies against the served tables, as start-up finds them. */
  policyProblems(config: Config, access: Access): Promise<string[]>;
}

/** The access blocks of `next` over the settings in force (everything else as started). */
function withAccessOf(current: Config, next: Config): Config {
  return Object.freeze({
    ...current,
    auth: next.auth,
    access: next.access,
    rowPolicies: next.rowPolicies,
    rowPoliciesDefault: next.rowPoliciesDefault,
  });
}

/** Reloads the access blocks once: the problems that kept the state in force (none: the new state is in force). */
export async function reloadAccess(app: FastifyInstance, o: ReloadOptions): Promise<string[]> {
  let config: Config;
  let access: Access;
  try {
    config = withAccessOf(app.tg.config, o.load());
    const refused = startupProblems(config);
    if (refused.length) return refused;
    access = createAccess(config);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  const refused = await o.policyProblems(config, access);
  if (refused.length) return refused;
  app.accessHolder.swap(access);
  app.tg.config = config;
  return [];
}

/**
 * Reloads on each SIGHUP, one reload at a time, when the settings name a config file; returns what stops it. Logs one line either way: the generation put
 * in force, or the problems that kept the old state (settings' names and places, never a secret).
 */
export function reloadOnHangup(app: FastifyInstance, o: ReloadOptions): () => void {
  // Without a config file there is nothing to reload: SIGHUP keeps its default (the process ends, as when the
  // terminal it runs in closes).
  if (app.tg.config.configFile === undefined) return () => undefined;
  let running: Promise<void> = Promise.resolve();
  const reload = async () => {
    try {
      const problems = await reloadAccess(app, o);
      if (problems.length === 0) {
        app.log.info({ generation: app.accessHolder.generation }, 'SIGHUP: the access blocks were reloaded');
      } else {
        app.log.error(`SIGHUP: reload refused, the access state in force stays: ${problems.join('; ')}`);
      }
    } catch (err) {
      app.log.error({ err }, 'SIGHUP: reload failed, the access state in force stays');
    }
  };
  const onHangup = () => {
    running = running.then(reload);
  };
  process.on('SIGHUP', onHangup);
  return () => process.off('SIGHUP', onHangup);
}
