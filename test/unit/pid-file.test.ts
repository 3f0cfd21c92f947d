/** The pid-file helpers the service scripts share (scripts/pid-file.ts); no service is started. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pidInFile, pidWritten } from '../../scripts/pid-file.js';

const dir = mkdtempSync(join(tmpdir(), 'tg-pid-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pid files', () => {
  it('a pid written after the launcher returned is still found (the daemon writes it itself)', async () => {
    const file = join(dir, 'late.pid');
    setTimeout(() => writeFileSync(file, '4242\n'), 150);
    expect(pidInFile(file)).toBeUndefined();
    expect(await pidWritten(file, 5_000)).toBe(4242);
  });

  it('no pid file within the wait: undefined, not a wait without end', async () => {
    expect(await pidWritten(join(dir, 'never.pid'), 120)).toBeUndefined();
  });

  it('a file that holds no pid is not one', async () => {
    const file = join(dir, 'junk.pid');
    writeFileSync(file, 'not a pid\n');
    expect(pidInFile(file)).toBeUndefined();
    expect(await pidWritten(file, 60)).toBeUndefined();
  });
});
