/**
 * The `Host` check, first of every request's hooks: a request naming a host the gateway does not answer for is a
 * 421 `TG_MISDIRECTED` (RFC 9110 15.5.20) before authentication, routing to a handler or any data.
 *
 * Why: a web page can point a name it controls at 127.0.0.1 (DNS rebinding); the browser then sends the page's
 * requests to the gateway as same-origin, with that name in `Host`. Answering only the names the gateway is known by
 * refuses them. Answered: the loopback names (`localhost`, `*.localhost`, `127.x.x.x`, `[::1]`), the listen address
 * (every local interface address when it listens on all of them), and `TOPICGATE_ALLOWED_HOSTS`: a host (any port),
 * `host:port` (that port), `*.example.com` (any name under it) or `*` (any Host: no protection). A request without
 * `Host` (HTTP/1.0, as a load balancer's health check sends) is answered: browsers always send one.
 */
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../../config/config.js';
import { isLoopback } from '../../config/is-loopback.js';
import { ApiError } from '../../core/errors.js';

/** The hosts a gateway answers for, built once from its settings. */
export interface HostRule {
  /** `*` was configured: every Host is answered. */
  readonly any: boolean;
  /** Exact names and `host:port` entries, lower case, IPv6 addresses in brackets. */
  readonly exact: ReadonlySet<string>;
  /** Domain suffixes of `*.` entries, with their dot (`.example.com`). */
  readonly suffixes: readonly string[];
}

/** The addresses a wildcard listen address (`0.0.0.0`, `::`) is reached by: every local interface's. */
function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

/** `::1` as a Host names it (`[::1]`); names and IPv4 addresses as they are. */
function asHostName(address: string): string {
  const a = address.toLowerCase();
  return isIP(a) === 6 ? `[${a}]` : a;
}

/** The rule of `config`: TOPICGATE_ALLOWED_HOSTS plus the listen address (see the file's comment). */
export function hostRule(config: Pick<Config, 'allowedHosts' | 'host'>): HostRule {
  const listen = config.host.trim().replace(/^\[(.*)\]$/, '$1');
  const everywhere = listen === '0.0.0.0' || listen === '::' || listen === '';
  const own = everywhere ? localAddresses() : [listen];
  const exact = new Set(own.map(asHostName));
  const suffixes: string[] = [];
  for (const h of config.allowedHosts) {
    if (h.startsWith('*.')) suffixes.push(h.slice(1));
    else if (h !== '*') exact.add(h);
  }
  return { any: config.allowedHosts.includes('*'), exact, suffixes };
}

/** Is `host` (a request's Host header: a name or address, with or without a port) one the rule answers for? */
export function isAllowedHost(rule: HostRule, host: string | undefined): boolean {
  if (host === undefined || host === '' || rule.any) return true;
  const h = host.toLowerCase();
  // An IPv6 address has colons of its own: its port, if any, is only after `]`.
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '');
  if (isLoopback(name) || rule.exact.has(name) || rule.exact.has(h)) return true;
  return rule.suffixes.some((s) => name.endsWith(s) && name.length > s.length);
}

async function allowedHostsPlugin(app: FastifyInstance, opts: { config: Config }): Promise<void> {
  const rule = hostRule(opts.config);
  if (rule.any)
    app.log.warn(
      'TOPICGATE_ALLOWED_HOSTS=*: any Host is answered, so any web page can reach the gateway by DNS rebinding',
    );
  app.addHook('onRequest', async (request) => {
    const host = request.headers.host;
    if (isAllowedHost(rule, host)) return;
    // The name is shown as sent, truncated: it is the caller's own text, never a credential.
    const shown = JSON.stringify(String(host).slice(0, 100));
    throw new ApiError(
      'TG_MISDIRECTED',
      `this gateway does not answer for Host ${shown}: add the name to TOPICGATE_ALLOWED_HOSTS to serve it`,
      { host: String(host).slice(0, 100), setting: 'TOPICGATE_ALLOWED_HOSTS' },
    );
  });
}

export default fp(allowedHostsPlugin, { name: 'topicgate-allowed-hosts', dependencies: ['topicgate-errors'] });
