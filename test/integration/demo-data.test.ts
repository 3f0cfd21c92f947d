/** The demo topics carry the hard cases real topics have; later features are tested against them. */
import { describe, expect, it } from 'vitest';
import { sql } from '../helpers.js';

async function one(query: string): Promise<unknown> {
  return (await sql(query))[0]![0];
}

describe('demo data hard cases', () => {
  it('has the expected sizes (10000 events per topic plus identical duplicates)', async () => {
    expect(await one('SELECT count(*) FROM orders')).toBe(10_020);
    expect(await one('SELECT count(*) FROM clicks')).toBe(10_010);
    expect(await one('SELECT count(*) FROM s3_events')).toBe(1_000);
  });

  it('null keys', async () => {
    expect(await one('SELECT count(*) FROM orders WHERE key IS NULL')).toBe(345); // i % 29 = 0 for i < 10000
  });

  it('keys and values that are not UTF-8', async () => {
    expect(await one(`SELECT count(*) FROM orders WHERE substr(key, 1, 1) = X'ff'`)).toBeGreaterThan(50);
    expect(await one(`SELECT count(*) FROM orders WHERE substr(value, 1, 2) = X'c328'`)).toBeGreaterThan(40);
  });

  it('values that are not JSON, and JSON with missing or mistyped fields', async () => {
    expect(await one(`SELECT count(*) FROM orders WHERE try(json_parse(from_utf8(value))) IS NULL`)).toBeGreaterThan(
      140,
    );
    expect(
      await one(`SELECT count(*) FROM orders WHERE json_extract(from_utf8(value), '$.amount') IS NULL
                 AND try(json_parse(from_utf8(value))) IS NOT NULL`),
    ).toBeGreaterThan(150);
    expect(
      await one(`SELECT count(*) FROM orders WHERE json_extract_scalar(from_utf8(value), '$.amount') = 'twelve'`),
    ).toBeGreaterThan(150);
  });

  it('unicode in payloads', async () => {
    expect(await one(`SELECT count(*) FROM orders WHERE strpos(from_utf8(value), '🚀') > 0`)).toBeGreaterThan(1000);
    expect(await one(`SELECT count(*) FROM orders WHERE strpos(from_utf8(value), 'مريم') > 0`)).toBeGreaterThan(1000);
  });

  it('integers beyond 2^53 in JSON payloads, exact', async () => {
    const big = await one(
      `SELECT json_extract_scalar(from_utf8(value), '$.trace_id') FROM orders WHERE from_utf8(value) LIKE '{"order_id":1000000,"status":"paid"%'`,
    );
    expect(big).toBe('9007199254740993');
    expect(await one(`SELECT count(*) FROM orders_expanded WHERE trace_id > 9007199254740992`)).toBeGreaterThan(9000);
  });

  it('producer clock skew', async () => {
    expect(
      await one(`SELECT count(*) FROM orders WHERE timestamp_producer = timestamp_broker + INTERVAL '29' SECOND`),
    ).toBe(244); // i % 41 = 0 for i < 10000
  });

  it('many events share one timestamp_broker millisecond', async () => {
    const rows = await sql(
      'SELECT timestamp_broker, count(*) FROM orders GROUP BY 1 HAVING count(*) >= 10 ORDER BY 1 LIMIT 2',
    );
    expect(rows.length).toBe(2);
    // events 0..9 share the first millisecond, and event 7 is stored twice
    expect(rows[0]).toEqual(['2026-11-01 00:00:00.000', 11]);
  });

  it('identical duplicate events', async () => {
    expect(
      await one(
        'SELECT count(*) FROM (SELECT key, value, timestamp_broker, timestamp_producer, headers FROM orders GROUP BY 1, 2, 3, 4, 5 HAVING count(*) = 2)',
      ),
    ).toBe(20);
    expect(
      await one(
        'SELECT count(*) FROM (SELECT key, value, timestamp_broker FROM clicks GROUP BY 1, 2, 3 HAVING count(*) > 1)',
      ),
    ).toBe(10);
  });

  it('s3_events look like VAST S3 notifications', async () => {
    const names = await sql(
      `SELECT json_extract_scalar(from_utf8(value), '$.Records[0].eventName') AS n, count(*) FROM s3_events GROUP BY 1 ORDER BY 1`,
    );
    expect(names).toEqual([
      ['ObjectCreated:CompleteMultipartUpload', 250],
      ['ObjectCreated:Copy', 250],
      ['ObjectCreated:Put', 250],
      ['ObjectRemoved:Delete', 250],
    ]);
  });
});
