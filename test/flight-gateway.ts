/**
 * A gateway with its Flight SQL entrance, both on free loopback ports, for tests whose clients run in other processes
 * (the JDBC program, ADBC and pyarrow.flight in Python): `startServer` as `npm start` runs it, with
 * TOPICGATE_FLIGHT_PORT=0.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/server/load-config.js';
import { startServer } from '../src/server.js';
import { trinoUrl } from './helpers.js';

const execFileAsync = promisify(execFile);

export interface FlightGateway {
  app: FastifyInstance;
  /** The HTTP API's base URL. */
  url: string;
  /** The Flight SQL URI (`grpc://127.0.0.1:<port>`) and its port. */
  flightUri: string;
  flightPort: number;
  close(): Promise<void>;
}

/** Serves `schema` of the local Trino; `env` adds settings (TOPICGATE_CONFIG, a shared cursor secret, ...). */
export async function flightGateway(schema: string, env: Record<string, string> = {}): Promise<FlightGateway> {
  const started = await startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_SCHEMAS: schema,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_FLIGHT_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      // The gateway shares the test's event loop, which waits on children.
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    }),
  );
  const flight = (started as { flight?: { uri: string; port: number } }).flight;
  if (!flight) {
    await started.app.close();
    throw new Error('the gateway started no Flight SQL server');
  }
  return {
    app: started.app,
    url: started.url,
    flightUri: flight.uri,
    flightPort: flight.port,
    close: () => started.app.close(),
  };
}

/** A REST read's Arrow output as test/pyarrow/read_arrow.py prints it (the values the Flight clients' are compared to). */
export async function restArrow(
  url: string,
  headers: Record<string, string>,
  dir: string,
): Promise<{ schema: { name: string; type: string }[]; rows: Record<string, unknown>[] }> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const file = join(dir, `${randomBytes(6).toString('hex')}.arrow`);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  // Asynchronously: the gateway under test shares this process's event loop.
  const { stdout } = await execFileAsync('python3', ['test/pyarrow/read_arrow.py', file], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  return JSON.parse(stdout) as { schema: { name: string; type: string }[]; rows: Record<string, unknown>[] };
}

/** Runs a Python helper of test/flight/ with one JSON argument; its JSON output (the last line). */
export async function python<T>(script: string, arg: object): Promise<T> {
  const { stdout } = await execFileAsync('python3', [`test/flight/${script}`, JSON.stringify(arg)], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}
