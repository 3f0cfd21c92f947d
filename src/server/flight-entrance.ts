/**
 * The Flight SQL entrance started beside the HTTP one (API.md "Flight SQL"), with the app's services: the same
 * settings, keys, registry, held results, memory budget, catalog and access in force, the app's metrics registry
 * and logger. It stops accepting calls when the app starts closing, and the app's close waits for it: running calls
 * have the shutdown's grace, then are cancelled (their Trino queries with them).
 */
import type { FastifyInstance } from 'fastify';
import { flightPortOf } from '../config/flight-settings.js';
import type { FlightServices } from '../flight/flight-call.js';
import { startFlight, type FlightServer } from '../flight/flight-server.js';

/** The app's services as the Flight entrance takes them. */
export function flightServicesOf(app: FastifyInstance): FlightServices {
  return { ...app.tg, accessHolder: app.accessHolder, metrics: app.metrics, log: app.log };
}

/**
 * The Flight SQL server's start, prepared before the app listens (its closing is hooked to the app's: a listening
 * app takes no hooks) and called once HTTP listens, so a problem with the HTTP address is reported first. The start
 * resolves with the server, or null when TOPICGATE_FLIGHT_PORT is off.
 */
export function prepareFlight(app: FastifyInstance): () => Promise<FlightServer | null> {
  const { config } = app.tg;
  const port = flightPortOf(config);
  if (port === null) return async () => null;
  // One of the two alone would serve plaintext to an operator who asked for TLS: refused instead.
  if (Boolean(config.flightTlsCert) !== Boolean(config.flightTlsKey))
    throw new Error('TOPICGATE_FLIGHT_TLS_CERT and TOPICGATE_FLIGHT_TLS_KEY go together: set both, or neither');
  const tls = config.flightTlsCert ? { certFile: config.flightTlsCert, keyFile: config.flightTlsKey } : undefined;
  let flight: FlightServer | undefined;
  let closing: Promise<void> | undefined;
  app.addHook('preClose', async () => {
    closing = flight?.close(config.shutdownGraceMs);
  });
  app.addHook('onClose', async () => closing ?? flight?.close(0));
  return async () => {
    try {
      flight = await startFlight(flightServicesOf(app), { port, host: config.host, tls });
    } catch (err) {
      throw new Error(`TOPICGATE_HOST/TOPICGATE_FLIGHT_PORT=${config.host}:${port}: ${(err as Error).message}`);
    }
    return flight;
  };
}
