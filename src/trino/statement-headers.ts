/**
 * The headers of one query's POST /v1/statement, built from that query's options alone (no state shared
 * between queries). Trino reads these headers verbatim, without URL decoding, except session values; anything
 * that cannot travel in a header unchanged is refused before a request is sent.
 */
import type { QueryOptions } from './trino-port.js';

export interface ConnectionIdentity {
  user: string;
  source: string;
  clientTags: readonly string[];
}

export function statementHeaders(
  connection: ConnectionIdentity,
  opts: QueryOptions,
  timeoutMs: number,
): Record<string, string> {
  const session: Record<string, string> = {
    query_max_run_time: `${Math.ceil(timeoutMs / 1000)}s`,
    ...opts.session,
  };
  const headers: Record<string, string> = {
    'X-Trino-User': userName(opts.user ?? connection.user),
    'X-Trino-Source': connection.source,
    // Without it Trino rounds timestamps to milliseconds.
    'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME',
    'X-Trino-Session': Object.entries(session)
      .map(([k, v]) => `${listItem(k, 'session property')}=${encodeURIComponent(v)}`)
      .join(','),
  };
  const tags = [...connection.clientTags, ...(opts.clientTags ?? [])].map((t) => listItem(t, 'client tag'));
  if (tags.length > 0) headers['X-Trino-Client-Tags'] = tags.join(',');
  // The gateway's own SQL is fully qualified anyway.
  if (opts.catalog) headers['X-Trino-Catalog'] = headerSafe(opts.catalog);
  if (opts.schema) headers['X-Trino-Schema'] = headerSafe(opts.schema);
  return headers;
}

/** Visible ASCII: a catalog or schema name Trino reads from its header as sent. */
export function headerSafe(v: string): string {
  if (!/^[\x21-\x7e]+$/.test(v)) throw new Error(`not usable as a Trino session header: ${JSON.stringify(v)}`);
  return v;
}

/** An item of a comma-separated header (client tags, session property names): no comma, no `=`. */
function listItem(v: string, what: string): string {
  if (!/^[\x21-\x7e]+$/.test(v) || /[,=]/.test(v))
    throw new Error(`not usable as a Trino ${what}: ${JSON.stringify(v)}`);
  return v;
}

/** A user name: printable ASCII, inner spaces allowed. */
function userName(v: string): string {
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v)) {
    throw new Error(`not usable as a Trino user: ${JSON.stringify(v)}`);
  }
  return v;
}
