/**
 * A vitest reporter that prints, at the end of every run, the slowest test files of each project and the sum of
 * all its files' times, so a file that grows slow shows up in the run that made it so.
 */
import type { Reporter, TestModule } from 'vitest/node';

/** How many files each project lists. */
const SHOWN = 10;

/** One file's wall time in its worker: environment, runner set-up, import and collection, then its hooks and tests. */
function wallMs(m: TestModule): number {
  const d = m.diagnostic();
  return d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Prints the {@link SHOWN} slowest files per project (wall time per file) after the default summary. */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byProject = new Map<string, TestModule[]>();
    for (const m of modules) {
      const name = m.project.name || 'default';
      byProject.set(name, [...(byProject.get(name) ?? []), m]);
    }
    const lines: string[] = [];
    for (const [project, files] of [...byProject].sort(([a], [b]) => a.localeCompare(b))) {
      const timed = files.map((m) => ({ m, ms: wallMs(m) })).sort((a, b) => b.ms - a.ms);
      const total = timed.reduce((sum, t) => sum + t.ms, 0);
      const shown = Math.min(SHOWN, timed.length);
      lines.push(`\n Slowest ${shown} of ${timed.length} files in ${project} (all files: ${seconds(total)})`);
      for (const { m, ms } of timed.slice(0, SHOWN)) {
        const tests = [...m.children.allTests()].length;
        lines.push(`  ${seconds(ms).padStart(9)}  ${m.relativeModuleId}  (${tests} tests, ${m.state()})`);
      }
    }
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  }
}
