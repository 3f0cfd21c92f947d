/**
 * Who a read runs for and what it runs with, as any entrance hands them to the read entry: the gateway's services
 * (settings, signing keys, the registry, held results, the memory budget), the caller (already authenticated), and
 * the caller's own Trino port (its queries take the caller's query slots). Nothing here knows the transport.
 */
import type { RegistryPort } from '../blob/avro/schema-registry.js';
import type { Config } from '../config/config.js';
import type { Keyring } from '../core/signed-token.js';
import type { Caller } from '../query/tree/read-policy.js';
import type { GatewayMemory, MemoryAccount } from '../read/gateway-memory.js';
import type { HeldResults } from '../read/held-results.js';
import type { PageContext, PageTrino } from '../read/open-page.js';

/** The gateway's services a read uses (the app's, whichever entrance it came through). */
export interface ReadServices {
  config: Config;
  keyring: Keyring;
  registry?: RegistryPort;
  held: HeldResults;
  memory: GatewayMemory;
}

/** One read's caller and the services it runs with. */
export interface ReadCall {
  services: ReadServices;
  /** The authenticated caller (row scope and page tokens are bound to it); undefined when the entrance has none. */
  caller: Caller | undefined;
  /** The caller's Trino port: its queries take the caller's query slots and are cancelled with the read. */
  trino: PageTrino;
}

/**
 * What reading pages needs, for a read cancelled by `signal` whose held bytes are counted in `memory`. A
 * look-ahead for exact headers holds at most its share of the limit: as much as each of the gateway's queries.
 */
export function pageContextOf(
  services: ReadServices,
  trino: PageTrino,
  signal: AbortSignal,
  memory: MemoryAccount,
): PageContext {
  const { config, registry, held, memory: gateway } = services;
  const lookAheadBytes = Math.floor(gateway.maxBytes / config.limits.maxConcurrentQueries);
  return { config, registry, held, trino, signal, memory, lookAheadBytes };
}
