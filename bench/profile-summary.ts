/**
 * Summarises V8 CPU profiles (`node --cpu-prof`, as `npm run bench -- --profile` writes them to bench/profiles/):
 * the functions with the most self time, and the project's functions (src/) by inclusive time.
 *
 *   tsx bench/profile-summary.ts bench/profiles/<rows>-<case> [more dirs or .cpuprofile files] [--top 25]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function files(arg: string): string[] {
  if (statSync(arg).isDirectory()) {
    return readdirSync(arg)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(arg, f));
  }
  return [arg];
}

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url ? relative(process.cwd(), url.replace(/^file:\/\//, '')).replace(/^node_modules\//, '~/') : '';
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
}

function summarise(file: string, top: number): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + dt);
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    self.set(label(n), (self.get(label(n)) ?? 0) + us);
    // Inclusive: count each distinct function once per sample stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    }
  }
  const idle = [...self].filter(([l]) => l.startsWith('(idle)')).reduce((a, [, us]) => a + us, 0);
  const busy = total - idle;
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  process.stdout.write(
    `\n== ${file}\n   ${(total / 1e6).toFixed(1)}s profiled, ${(busy / 1e6).toFixed(1)}s busy (percentages of busy time)\n`,
  );
  process.stdout.write(`-- self time\n`);
  for (const [l, us] of [...self]
    .filter(([l]) => !l.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    process.stdout.write(`${pct(us)}  ${l}\n`);
  }
  process.stdout.write(`-- inclusive time, src/ functions\n`);
  for (const [l, us] of [...inclusive]
    .filter(([l]) => l.includes(' src/') || l.includes(' dist/'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)) {
    process.stdout.write(`${pct(us)}  ${l}\n`);
  }
}

const argv = process.argv.slice(2);
const topAt = argv.indexOf('--top');
const top = topAt >= 0 ? Number(argv.splice(topAt, 2)[1]) : 25;
if (argv.length === 0) throw new Error('usage: tsx bench/profile-summary.ts <profile dir or file>... [--top N]');
for (const arg of argv) for (const f of files(arg)) summarise(f, top);
