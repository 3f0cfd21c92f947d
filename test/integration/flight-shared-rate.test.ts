/**
 * `limits.requestsPerMinute` is one budget per caller across instances and entrances when the state is PostgreSQL:
 * HTTP requests to one instance and Flight SQL calls to another count in the same shared window, so a caller cannot
 * multiply the limit by switching entrance or instance. Two gateways on the real PostgreSQL, a gRPC client of the
 * gateway's own service definition (ListActions: one call each).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, makeGenericClientConstructor, credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { pgUp } from '../../scripts/local-postgres.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { flightService } from '../../src/flight/flight-service.js';
import { flightGateway, type FlightGateway } from '../flight-gateway.js';

const run = randomBytes(4).toString('hex');
const KEY = `key-rate-${run}-000000000000000000`;
/** Other principals' keys, each a budget of its own: one for isolation, one whose key is forged. */
const OTHER = `key-rate-other-${run}-0000000000000`;
const CLAIMED = `key-rate-claimed-${run}-00000000000`;
const PER_MINUTE = 4;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-flight-rate-'));
const gateways: FlightGateway[] = [];

beforeAll(async () => {
  const { url } = await pgUp();
  const file = join(dir, 'rate.yaml');
  writeFileSync(
    file,
    stringify({
      // Its own principal per run: the shared counts outlive a run in the store.
      auth: {
        apiKeys: [
          { principal: `rate-${run}`, sha256: apiKeyHash(KEY), roles: ['all'] },
          { principal: `rate-other-${run}`, sha256: apiKeyHash(OTHER), roles: ['all'] },
          { principal: `rate-claimed-${run}`, sha256: apiKeyHash(CLAIMED), roles: ['all'] },
        ],
      },
      access: [{ roles: ['all'], topics: ['*'], actions: ['read'] }],
      limits: { requestsPerMinute: PER_MINUTE },
    }),
  );
  const env = {
    TOPICGATE_CONFIG: file,
    TOPICGATE_STATE_URL: url,
    TOPICGATE_CURSOR_SECRET: `rate-secret-${run}-0123456789abcdef0123`,
  };
  gateways.push(await flightGateway('demo|kafka_topics', env), await flightGateway('demo|kafka_topics', env));
}, 120_000);
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  rmSync(dir, { recursive: true, force: true });
});

const FlightClient = makeGenericClientConstructor(flightService, 'FlightService');
const LIST_ACTIONS = flightService.ListActions!;

/** One ListActions call with `key` (the caller's unless told): null when answered, else the gRPC error. */
function listActions(g: FlightGateway, key = KEY): Promise<ServiceError | null> {
  const client = new FlightClient(`127.0.0.1:${g.flightPort}`, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${key}`);
  return new Promise((resolve) => {
    const call = client.makeServerStreamRequest(
      LIST_ACTIONS.path,
      LIST_ACTIONS.requestSerialize,
      LIST_ACTIONS.responseDeserialize,
      {},
      metadata,
    );
    call.on('data', () => undefined);
    call.on('error', (err: ServiceError) => {
      client.close();
      resolve(err);
    });
    call.on('end', () => {
      client.close();
      resolve(null);
    });
  });
}

describe('requestsPerMinute across instances and entrances', () => {
  it('calls with a forged key are refused and spend nothing of the principal they claim', async () => {
    const forged = `${CLAIMED.slice(0, -1)}x`;
    // Refused before they are a principal's: counted by the client's address, across the instances (UNAUTHENTICATED
    // until the address has spent its budget, RESOURCE_EXHAUSTED after), never by the key's owner.
    const codes: (number | undefined)[] = [];
    for (const g of gateways) for (let i = 0; i < PER_MINUTE; i++) codes.push((await listActions(g, forged))?.code);
    expect(new Set(codes).size <= 2 && codes.every((c) => c === 16 || c === 8)).toBe(true);
    expect(codes.at(-1)).toBe(8);
    for (let i = 0; i < PER_MINUTE; i++) expect(await listActions(gateways[i % 2]!, CLAIMED)).toBeNull();
    expect((await listActions(gateways[0]!, CLAIMED))?.code).toBe(8);
  });

  it('HTTP requests on one instance and Flight calls on another share the caller’s one budget', async () => {
    const [one, two] = gateways as [FlightGateway, FlightGateway];
    const http = () => fetch(`${one.url}/v1/topics`, { headers: { authorization: `Bearer ${KEY}` } });
    for (let i = 0; i < PER_MINUTE / 2; i++) expect((await http()).status).toBe(200);
    for (let i = 0; i < PER_MINUTE / 2; i++) expect(await listActions(two)).toBeNull();
    // The budget is spent: the next Flight call on either instance, and the next HTTP request, are refused.
    const refused = await listActions(two);
    expect(refused?.code).toBe(8); // RESOURCE_EXHAUSTED
    expect(refused?.details).toMatch(/^TG_TOO_MANY_REQUESTS: more than 4 calls a minute; retry after \d+s$/);
    expect((await listActions(one))?.code).toBe(8);
    const page = await http();
    expect(page.status).toBe(429);
    expect(((await page.json()) as { error: { code: string } }).error.code).toBe('TG_TOO_MANY_REQUESTS');
    // Another principal, on the same instances and address, still has its whole budget.
    for (let i = 0; i < PER_MINUTE; i++) expect(await listActions(gateways[i % 2]!, OTHER)).toBeNull();
    expect((await listActions(two, OTHER))?.code).toBe(8);
  });
});
