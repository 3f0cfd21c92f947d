/**
 * The Flight SQL entrance (API.md "Flight SQL"): a gRPC server on @grpc/grpc-js beside the HTTP one, with the same
 * services (settings, signing keys, registry, held results, memory budget, catalog, the access in force). It starts
 * and stops with the gateway (server.ts); tests start it on port 0.
 */
import { readFileSync } from 'node:fs';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { CallRate } from './call-rate.js';
import { SchemaCache } from './schema-cache.js';
import { HandshakeTokens } from './flight-auth.js';
import type { FlightServices } from './flight-call.js';
import { flightHandlers } from './flight-handlers.js';
import { flightMetrics } from './flight-metrics.js';
import { flightService } from './flight-service.js';

export interface FlightListen {
  port: number;
  host: string;
  /** PEM files of the server's certificate and key: TLS (`grpc+tls://`); absent: plaintext (`grpc://`). */
  tls?: { certFile: string; keyFile: string };
}

export interface FlightServer {
  /** The port bound (the one asked for, or the one the system chose for port 0). */
  port: number;
  /** The URI clients connect to. */
  uri: string;
  /** Stops accepting calls, lets running ones finish for `graceMs`, then cancels the rest (their Trino queries too). */
  close(graceMs?: number): Promise<void>;
}

/** The largest message a client may send: commands and tickets are small; a statement is at most 64 KiB of SQL. */
const MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/** Starts the Flight SQL server; rejects with a message naming the address when it cannot listen. */
export async function startFlight(services: FlightServices, listen: FlightListen): Promise<FlightServer> {
  const server = new Server({ 'grpc.max_receive_message_length': MAX_RECEIVE_BYTES });
  const ctx = {
    services,
    tokens: new HandshakeTokens(services.keyring),
    metrics: flightMetrics(services.metrics.registry),
    rate: new CallRate(services.config.limits.requestsPerMinute, services.quotas?.rateCounts),
    schemas: new SchemaCache(),
  };
  server.addService(flightService, flightHandlers(ctx));
  const credentials = listen.tls
    ? ServerCredentials.createSsl(null, [
        { cert_chain: readFileSync(listen.tls.certFile), private_key: readFileSync(listen.tls.keyFile) },
      ])
    : ServerCredentials.createInsecure();
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${listen.port}`, credentials, (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  const scheme = listen.tls ? 'grpc+tls' : 'grpc';
  return {
    port,
    uri: `${scheme}://${host}:${port}`,
    close: (graceMs = 10_000) => closeServer(server, graceMs),
  };
}

/** tryShutdown lets running calls end; past the grace, forceShutdown cancels them (each call's lease ends). */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.forceShutdown(), graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
