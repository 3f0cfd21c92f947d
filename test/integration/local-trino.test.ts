/**
 * The project's local Trino: `up` while one runs is a no-op that finds it, whichever JIT mode the suite started it
 * with (`anyJit`); its pid file names a Trino server.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { layout, trinoReady, up } from '../../scripts/local-trino.js';

describe('local Trino', () => {
  it('a second up finds the running server and starts nothing', async () => {
    const l = layout();
    const pidBefore = readFileSync(l.pidFile, 'utf8').trim();
    const again = await up(l, undefined, { anyJit: true });
    expect(again).toEqual({ url: l.url, started: false });
    expect(readFileSync(l.pidFile, 'utf8').trim()).toBe(pidBefore);
    expect(readFileSync(`/proc/${pidBefore}/cmdline`, 'utf8')).toContain('io.trino.server');
    expect(await trinoReady(l.url)).toBe(true);
  });
});
