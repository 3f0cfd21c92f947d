/**
 * What a tool call runs with, as the HTTP entrance hands it over: the gateway's services and catalog, the
 * authenticated caller with the access in force (grants, row policies), the caller's own Trino port (its queries
 * take the caller's query slots and end with the request), and the request's abort signal.
 */
import type { AccessCall } from '../access/access-checks.js';
import type { ReadCall, ReadServices } from '../entry/read-call.js';
import type { TopicCatalog } from '../read/topic-catalog.js';

export interface McpCall extends ReadCall, AccessCall {
  services: ReadServices & { catalog: TopicCatalog };
  /** Aborted when the client goes away: the tool's Trino queries are cancelled. */
  signal: AbortSignal;
}

/** The most rows a tool returns: `limits.mcpMaxRows`, and never above the largest page a read may ask for. */
export function maxRowsOf(call: Pick<McpCall, 'services'>): number {
  const { config } = call.services;
  return Math.min(config.limits.mcpMaxRows, config.maxLimit);
}
