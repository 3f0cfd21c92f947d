/**
 * Cancelled Flight SQL partitions (Flight.proto's CancelFlightInfo, and a DoGet the client cancels) over the real
 * Trino, with pyarrow.flight (test/flight/flight_raw.py): a partition of the bulk clicks held after its first batch,
 * then cancelled by the client or by CancelFlightInfo, has its Trino query cancelled (USER_CANCELED in
 * system.runtime.queries); a cancelled FlightInfo's ticket is refused afterwards, a ticket whose call was cancelled
 * reads again; another principal's CancelFlightInfo of the same FlightInfo cancels nothing; a malformed one is
 * INVALID_ARGUMENT and the server serves on.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { flightGateway, python, type FlightGateway } from '../flight-gateway.js';
import { queryState } from '../helpers.js';

const run = randomBytes(4).toString('hex');
const KEYS = { alice: `key-alice-${run}-00000000000000`, mallory: `key-mallory-${run}-000000000000` };
const dir = mkdtempSync(join(tmpdir(), 'topicgate-flight-cancel-'));
/** The bulk clicks (400,400 events): a partition big enough to be held open while its query runs. */
let bulk: FlightGateway;

beforeAll(async () => {
  const file = join(dir, 'cancel.yaml');
  const key = (who: keyof typeof KEYS) => ({ principal: `${who}-${run}`, sha256: apiKeyHash(KEYS[who]), roles: ['r'] });
  writeFileSync(
    file,
    stringify({
      auth: { apiKeys: [key('alice'), key('mallory')] },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
    }),
  );
  bulk = await flightGateway('bulk|kafka_topics', {
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: `cancel-secret-${run}-0123456789abcdef`,
    TOPICGATE_PREFETCH_ROWS: '0',
  });
}, 300_000);
afterAll(async () => {
  await bulk?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CLICKS =
  "SELECT * FROM clicks WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' " +
  "AND timestamp_broker < TIMESTAMP '2026-11-02 00:00:00'";

interface Held {
  queryId: string;
  before: string;
  outcome: string;
  again: string;
}

/**
 * Holds a partition's DoGet after its first batch, cancels it as `how` says (CancelFlightInfo with `canceller`'s
 * key), then reads on and reads the same ticket again.
 */
async function holdAndCancel(how: 'call' | 'action', canceller: keyof typeof KEYS = 'alice'): Promise<Held> {
  const arg = {
    mode: 'hold',
    uri: bulk.flightUri,
    token: KEYS.alice,
    cancelToken: KEYS[canceller],
    sql: CLICKS,
    headers: { 'topicgate-streams': '1' },
    cancel: how,
  };
  const child = spawn('python3', ['test/flight/flight_raw.py', JSON.stringify(arg)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const lines = async (n: number) => {
    while (out.split('\n').filter(Boolean).length < n) {
      if (child.exitCode !== null) throw new Error(`flight_raw.py exited ${child.exitCode}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, string>);
  };
  const [held] = await lines(1);
  const before = (await queryState(held!.queryId!)).state;
  child.stdin.write('cancel\n');
  const [, result] = await lines(2);
  return { queryId: held!.queryId!, before, outcome: result!.outcome!, again: result!.again! };
}

describe('cancelled partitions cancel their Trino queries', () => {
  it.each([
    ['the client cancelling its DoGet', 'call', 'complete'],
    ['CancelFlightInfo', 'action', 'FlightCancelledError'],
  ] as const)('cancelled by %s (%s), the ticket read again: %s', async (_what, how, again) => {
    const held = await holdAndCancel(how);
    expect(held.queryId).toMatch(/^\d{8}_\d{6}_\d{5}_\w+$/);
    expect(held.before).not.toBe('FINISHED');
    expect(held.outcome).toBe('FlightCancelledError');
    await expect
      .poll(() => queryState(held.queryId), { timeout: 15_000, interval: 100 })
      .toMatchObject({
        state: 'FAILED',
        error: 'USER_CANCELED',
      });
    // A cancelled call leaves the ticket readable; a cancelled FlightInfo's tickets are refused afterwards.
    expect(held.again).toBe(again);
  });

  it("another principal's CancelFlightInfo of the same FlightInfo cancels nothing", async () => {
    const held = await holdAndCancel('action', 'mallory');
    expect(held.outcome).toBe('complete');
    expect(held.again).toBe('complete');
    expect((await queryState(held.queryId)).state).toBe('FINISHED');
  });

  it('a CancelFlightInfo whose body is not a CancelFlightInfoRequest is INVALID_ARGUMENT; the server serves on', async () => {
    const bad = await python<{ error?: { kind: string; message: string } }>('flight_raw.py', {
      mode: 'action',
      uri: bulk.flightUri,
      token: KEYS.alice,
      type: 'CancelFlightInfo',
      bodyHex: 'ffff01',
    });
    expect(bad.error?.kind).toBe('ArrowInvalid');
    expect(bad.error?.message).toContain('TG_BAD_REQUEST');
    const info = await python<{ tickets?: string[] }>('flight_raw.py', {
      mode: 'info',
      uri: bulk.flightUri,
      token: KEYS.alice,
      sql: CLICKS,
      headers: { 'topicgate-streams': '2' },
    });
    expect(info.tickets).toHaveLength(2);
  });
});
