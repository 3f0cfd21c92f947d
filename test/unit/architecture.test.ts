/**
 * The shape of the house (STYLE.md): data flows one way, request -> plan -> passes -> compile -> Trino -> encode,
 * and each step knows nothing of the steps after it. This test reads every runtime import under src/ (type-only
 * imports are erased at run time and may point anywhere) and fails on an import against the flow or a cycle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative runtime imports of a module (import/export ... from, not `import type`, not all-`type` lists). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+([^;]*?)\s+from\s+'(\.[^']+)'/gms)) {
    const [, what, spec] = m as unknown as [string, string, string];
    if (/^type\b/.test(what)) continue;
    const names = /^\{([^}]*)\}$/.exec(what.trim())?.[1];
    if (names?.split(',').every((n) => !n.trim() || /^type\s/.test(n.trim()))) continue;
    out.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return out;
}

/** The area of a module: its folder under src/, or its own name for a top-level file. */
const area = (file: string) => relative(SRC, file).split('/')[0]!.replace(/\.ts$/, '');

/** Areas each area must not import at run time: everything downstream of it, and the app around it. */
const FORBIDDEN: Record<string, readonly string[]> = {
  errors: ['*'],
  duration: ['*'],
  settings: ['*'],
  schemas: ['app', 'server', 'routes', 'plugins', 'read', 'cursors', 'catalog', 'blob', 'query', 'trino', 'encode'],
  trino: ['app', 'server', 'routes', 'plugins', 'read', 'cursors', 'catalog', 'blob', 'query', 'encode', 'access'],
  encode: ['app', 'server', 'routes', 'plugins', 'read', 'cursors', 'catalog', 'blob', 'query', 'access'],
  query: ['app', 'server', 'routes', 'plugins', 'read', 'cursors', 'catalog', 'trino', 'encode', 'access'],
  blob: ['app', 'server', 'routes', 'plugins', 'read', 'cursors', 'encode', 'access'],
  catalog: ['app', 'server', 'routes', 'plugins', 'read', 'cursors', 'encode', 'access'],
  cursors: ['app', 'server', 'routes', 'plugins', 'encode'],
  read: ['app', 'server', 'routes', 'plugins'],
  access: ['app', 'server', 'routes', 'cursors', 'encode', 'trino'],
};

const graph = new Map(files(SRC).map((f) => [f, runtimeImports(f)]));

describe('imports follow the flow', () => {
  it('reads every module', () => {
    expect(graph.size).toBeGreaterThan(40);
  });

  it('no area imports what comes after it', () => {
    const against: string[] = [];
    for (const [file, imports] of graph) {
      const from = area(file);
      const forbidden = FORBIDDEN[from] ?? [];
      for (const target of imports) {
        const to = area(target);
        if (to !== from && (forbidden.includes(to) || forbidden.includes('*')))
          against.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(against).toEqual([]);
  });

  it('no runtime import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(SRC, p)).join(' -> '));
        return;
      }
      state.set(f, 'open');
      for (const t of graph.get(f) ?? []) visit(t, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
