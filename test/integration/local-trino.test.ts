/**
 * The project's local Trino: `up` while one runs is a no-op that finds it, whichever JVM modes the suite started it
 * with (`anyJvm`); afterwards its pid file names that server (written again from the server's command line if it
 * did not).
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { layout, serverPids, trinoReady, up } from '../../scripts/local-trino.js';

/** Every Trino server process on the machine, for the failure message. */
const trinoProcesses = () => {
  try {
    return execFileSync('pgrep', ['-af', 'io.trino.server.TrinoServer'], { encoding: 'utf8' }).slice(0, 2000);
  } catch {
    return '(none)';
  }
};

describe('local Trino', () => {
  it('a second up finds the running server and starts nothing', async () => {
    const l = layout();
    const before = serverPids(l);
    expect(before, trinoProcesses()).toHaveLength(1);
    const again = await up(l, undefined, { anyJvm: true });
    expect(again).toEqual({ url: l.url, started: false });
    expect(serverPids(l), trinoProcesses()).toEqual(before);
    const recorded = Number(readFileSync(l.pidFile, 'utf8').trim());
    expect(recorded, trinoProcesses()).toBe(before[0]);
    expect(readFileSync(`/proc/${recorded}/cmdline`, 'utf8')).toContain('io.trino.server');
    expect(await trinoReady(l.url)).toBe(true);
  });
});
