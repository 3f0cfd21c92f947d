/**
 * A statement without LIMIT over an open window reads at most the rows one read may return (the topic's maxLimit):
 * when more rows matched, its stream ends with RESOURCE_EXHAUSTED naming the cap after the rows sent, so a client
 * never takes a cut result for the whole one; when all matched rows fit, the stream ends as usual. ADBC, on a
 * gateway whose maxLimit is small.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flightGateway, type FlightGateway } from '../flight-gateway.js';

const run = promisify(execFile);
const MAX_LIMIT = 5;
let gateway: FlightGateway;

beforeAll(async () => {
  gateway = await flightGateway('demo|kafka_topics', { TOPICGATE_MAX_LIMIT: String(MAX_LIMIT) });
}, 120_000);
afterAll(() => gateway?.close());

interface Step {
  ok?: { rows: unknown[] };
  error?: { grpc?: string; message: string };
}

/** `query`: ADBC's execute and fetch; `flight`: pyarrow.flight's GetFlightInfo and DoGet. */
async function query(sql: string, step: 'query' | 'flight' = 'query'): Promise<Step> {
  const args = { uri: gateway.flightUri, user: 'anyone', password: 'x', steps: [{ do: step, sql }] };
  const { stdout } = await run('python3', ['test/flight/flight_sql.py', JSON.stringify(args)], { encoding: 'utf8' });
  const out = JSON.parse(stdout) as { connect?: unknown; results: Step[] };
  expect(out.connect).toBeUndefined();
  return out.results[0]!;
}

describe('a statement without LIMIT over an open window', () => {
  it('matching more rows than maxLimit ends in RESOURCE_EXHAUSTED naming the cap, never a silently short table', async () => {
    const adbc = await query('SELECT key FROM orders');
    expect(adbc.ok).toBeUndefined();
    expect(adbc.error?.message).toMatch(/TG_TOO_EXPENSIVE/);
    expect(adbc.error?.message).toContain(`more than the ${MAX_LIMIT} rows`);
    // ADBC labels every status it does not map as INTERNAL in its message; pyarrow names the status itself.
    const flight = await query('SELECT key FROM orders', 'flight');
    expect(flight.ok).toBeUndefined();
    expect(flight.error?.message.toLowerCase()).toContain('resource exhausted');
    expect(flight.error?.message).toMatch(/TG_TOO_EXPENSIVE/);
  });

  it('matching no more than maxLimit rows is read whole', async () => {
    const step = await query(`SELECT key FROM orders WHERE timestamp_broker >= now() - INTERVAL '1' SECOND`);
    expect(step.error).toBeUndefined();
    expect(step.ok!.rows.length).toBeLessThanOrEqual(MAX_LIMIT);
  });

  it('with a LIMIT at the cap, the rows come without an error', async () => {
    const step = await query(`SELECT key FROM orders LIMIT ${MAX_LIMIT}`);
    expect(step.error).toBeUndefined();
    expect(step.ok!.rows).toHaveLength(MAX_LIMIT);
  });
});
