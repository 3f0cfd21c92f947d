/** The wait until a freshly started Trino schedules scans (scripts/trino-scannable.ts), on a scripted Trino port. */
import { describe, expect, it } from 'vitest';
import { untilScannable } from '../../scripts/trino-scannable.js';
import { TrinoQueryError } from '../../src/trino/trino-errors.js';
import type { TrinoPort, TrinoRows } from '../../src/trino/trino-port.js';

const fail = (errorName: string, errorType = 'INTERNAL_ERROR') =>
  new TrinoQueryError({ message: errorName, errorCode: 1, errorName, errorType }, 'q1');

/** A port whose `all` records each statement and fails the probe's scan with the next of `scanFailures`. */
function scripted(scanFailures: Error[]): { port: TrinoPort; statements: string[] } {
  const statements: string[] = [];
  const all = async (sql: string): Promise<TrinoRows> => {
    statements.push(sql);
    if (sql.startsWith('SELECT') && scanFailures.length > 0) throw scanFailures.shift();
    return { columns: [], rows: [[1]] } as unknown as TrinoRows;
  };
  return { port: { all } as unknown as TrinoPort, statements };
}

describe('untilScannable', () => {
  it('scans again while Trino answers NO_NODES_AVAILABLE, then drops the probe and its schema', async () => {
    const { port, statements } = scripted([fail('NO_NODES_AVAILABLE'), fail('NO_NODES_AVAILABLE')]);
    await untilScannable(port, 'vast');
    const schema = /^CREATE SCHEMA ("vast"\."topicgate_start_[0-9a-f]{8}")$/.exec(statements[0]!)?.[1];
    expect(schema, statements[0]).toBeDefined();
    const probe = `${schema}."probe"`;
    expect(statements).toEqual([
      `CREATE SCHEMA ${schema}`,
      `CREATE TABLE ${probe} AS SELECT 1 AS x`,
      `SELECT count(*) FROM ${probe}`,
      `SELECT count(*) FROM ${probe}`,
      `SELECT count(*) FROM ${probe}`,
      `DROP TABLE ${probe}`,
      `DROP SCHEMA ${schema}`,
    ]);
  });

  it('each wait makes a schema of its own: two starts waiting on one Trino do not meet', async () => {
    const a = scripted([]);
    const b = scripted([]);
    await Promise.all([untilScannable(a.port, 'vast'), untilScannable(b.port, 'vast')]);
    expect(a.statements[0]).not.toBe(b.statements[0]);
  });

  it('any other failure rejects at once, with no second scan', async () => {
    const { port, statements } = scripted([fail('TABLE_NOT_FOUND', 'USER_ERROR')]);
    await expect(untilScannable(port, 'vast')).rejects.toThrow('TABLE_NOT_FOUND');
    expect(statements.filter((s) => s.startsWith('SELECT'))).toHaveLength(1);
  });

  it('past its time limit the last NO_NODES_AVAILABLE rejects', async () => {
    const { port, statements } = scripted(Array.from({ length: 100 }, () => fail('NO_NODES_AVAILABLE')));
    await expect(untilScannable(port, 'vast', 300)).rejects.toThrow('NO_NODES_AVAILABLE');
    const scans = statements.filter((s) => s.startsWith('SELECT')).length;
    // 250 ms between scans: the first at 0, the second at 250 ms, the third past the 300 ms limit.
    expect(scans).toBeGreaterThanOrEqual(2);
    expect(scans).toBeLessThanOrEqual(3);
  });
});
