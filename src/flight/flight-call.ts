/**
 * One Flight call as the read entry sees it: the caller authenticated by the authenticator in force, its grants and
 * row policies, and its own Trino port: a query lease (access/query-lease.ts), as an HTTP data request has one, so
 * its queries take the caller's query slots and are cancelled when the call is cancelled or ends. Each call is
 * counted and logged once when it ends (who, what, outcome, rows; never a credential).
 */
import type { Metadata } from '@grpc/grpc-js';
import type { Counter, Registry } from 'prom-client';
import type { AccessCall } from '../access/access-checks.js';
import type { AccessHolder } from '../access/access-holder.js';
import type { Authenticator } from '../access/authenticate.js';
import { ANONYMOUS, quotaKey, type Principal } from '../access/principal.js';
import { ERROR_CATALOG, type ErrorCode } from '../core/errors.js';
import { toApiError } from '../trino/trino-errors.js';
import type { CallRate, SharedRateCounts } from './call-rate.js';
import type { SchemaCache } from './schema-cache.js';
import { QueryLease } from '../access/query-lease.js';
import type { SharedSlots } from '../access/shared-slots.js';
import type { ReadCall, ReadServices } from '../entry/read-call.js';
import type { TopicCatalog } from '../read/topic-catalog.js';
import type { TrinoPort } from '../trino/trino-port.js';
import { authenticateCall, type HandshakeTokens } from './flight-auth.js';
import type { FlightMetrics } from './flight-metrics.js';
import { CallCancelled } from './flight-status.js';

/** The logger the gateway logs with (pino's methods the entrance uses). */
export interface FlightLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The gateway's services a Flight call runs with (the app's, as the HTTP entrance has them). */
export interface FlightServices extends ReadServices {
  catalog: TopicCatalog;
  trino: TrinoPort;
  /** The access state in force (grants, row policies, authenticator, query limiter), swapped by a reload. */
  accessHolder: AccessHolder;
  /** The caller's query slots and calls counted across instances, when they are. */
  quotas?: { slots?: SharedSlots; rateCounts?: SharedRateCounts };
  /** The app's Prometheus registry and its rows counter. */
  metrics: { registry: Registry; rows: Counter<'format'> };
  log: FlightLog;
}

/** What every handler of the entrance is given. */
export interface FlightContext {
  services: FlightServices;
  tokens: HandshakeTokens;
  metrics: FlightMetrics;
  /** Calls per minute per caller. */
  rate: CallRate;
  /** Result schemas lately probed. */
  schemas: SchemaCache;
}

/** One authenticated call: the read entry's call and access call, its lease and what cancels it. */
export interface FlightCall extends ReadCall, AccessCall {
  services: FlightServices;
  principal: Principal;
  signal: AbortSignal;
  /** Cancels the call from the server's side (CancelFlightInfo): as the client's cancel, its Trino queries too. */
  cancel(): void;
  /** The call's request headers (`topicgate-streams`: the partitions a bulk statement is cut into). */
  metadata: Metadata;
  /** Rows sent, for the log line and the rows counter. */
  rows: number;
  /** Result schemas lately probed (the entrance's). */
  schemas: SchemaCache;
}

/** What withCall needs of a gRPC server call: its metadata, its peer and its 'cancelled' event. */
export interface GrpcCall {
  readonly metadata: Metadata;
  getPeer(): string;
  once(event: 'cancelled', listener: () => void): unknown;
  removeListener(event: 'cancelled', listener: () => void): unknown;
}

/** The client's address as the quotas count an anonymous caller: gRPC's peer without its port. */
export function addressOf(peer: string): string {
  return peer
    .replace(/^ipv[46]:/, '')
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/**
 * The caller of a call, authenticated by the authenticator in force, and the call counted against its calls per
 * minute (by its principal, or its address when refused: counted before the refusal, so guessing is limited too).
 */
export async function admitted(ctx: FlightContext, authenticator: Authenticator, grpc: GrpcCall): Promise<Principal> {
  let principal: Principal | undefined;
  let refused: unknown;
  try {
    principal = await authenticateCall(authenticator, ctx.tokens, grpc.metadata);
  } catch (err) {
    refused = err;
  }
  await ctx.rate.take(quotaKey(principal ?? ANONYMOUS, addressOf(grpc.getPeer())));
  if (!principal) throw refused;
  return principal;
}

/** The metrics label of an outcome: ok, cancelled, refused (a 4xx) or failed (the gateway or Trino). */
function outcomeLabel(outcome: string): string {
  if (outcome === 'ok' || outcome === 'cancelled') return outcome;
  return ERROR_CATALOG[outcome as ErrorCode]?.status < 500 ? 'refused' : 'failed';
}

/**
 * Runs `work` as one call of `method`: authenticated, with its lease, cancelled with the gRPC call, counted and
 * logged when it ends however it ends. What `work` throws is rethrown for the handler to answer as a status.
 */
export async function withCall<T>(
  ctx: FlightContext,
  method: string,
  grpc: GrpcCall,
  work: (call: FlightCall) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  const { services } = ctx;
  const access = services.accessHolder.current;
  const audit: FlightCall['audit'] = {};
  let principal: Principal | undefined;
  let lease: QueryLease | undefined;
  let call: FlightCall | undefined;
  const gone = new AbortController();
  const onCancel = () => gone.abort(new CallCancelled());
  grpc.once('cancelled', onCancel);
  let outcome = 'ok';
  try {
    principal = await admitted(ctx, access.authenticator, grpc);
    const key = quotaKey(principal, addressOf(grpc.getPeer()));
    lease = new QueryLease(services.trino, access.queries, key, gone.signal, services.quotas?.slots);
    const more = { cancel: onCancel, metadata: grpc.metadata, rows: 0, schemas: ctx.schemas };
    call = { services, caller: principal, trino: lease, access, principal, audit, signal: gone.signal, ...more };
    return await work(call);
  } catch (err) {
    outcome = gone.signal.aborted ? 'cancelled' : toApiError(err).code;
    throw gone.signal.aborted ? new CallCancelled() : err;
  } finally {
    grpc.removeListener('cancelled', onCancel);
    lease?.end();
    const rows = call?.rows ?? 0;
    ctx.metrics.calls.inc({ method, outcome: outcomeLabel(outcome) });
    if (rows) services.metrics.rows.inc({ format: 'flight' }, rows);
    services.log.info(
      {
        flight: {
          method,
          principal: principal?.name ?? null,
          id: principal?.id ?? null,
          topic: audit.topic ?? null,
          action: audit.action ?? null,
          rows,
          durationMs: Date.now() - started,
          outcome,
        },
      },
      'flight call',
    );
  }
}
