/**
 * The import graph of src/ and the checks the architecture test runs on it. Every import counts: `import type`,
 * `export ... from` and dynamic `import('...')` too, because a type import ties two modules together as surely as
 * a runtime one (a change to the type is a change to both). The checks take a graph, so they are tested on small
 * synthetic graphs as well as on the real one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

/** Module -> the modules it imports, each named by its path under src/ (`query/tree/nodes.ts`). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** An import between two modules, as the checks report it. */
export interface Edge {
  from: string;
  to: string;
}

const STATIC = /(?:^|[\s;}])(?:import|export)\s(?:[^'";=()]*?\sfrom\s*)?['"]([^'"\s]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"\s]+)['"]\s*\)/g;

/** Every module specifier a source text imports, in order: static, type-only, re-exports, dynamic. */
function allSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(STATIC), ...code.matchAll(DYNAMIC)].map((m) => m[1]!);
}

/** The relative module specifiers a source text imports (the modules of the graph). */
export function importSpecifiers(text: string): string[] {
  return allSpecifiers(text).filter((s) => s.startsWith('./') || s.startsWith('../'));
}

/** The packages a source text imports, by name (`@scope/name` or `name`); Node's built-ins are not packages. */
export function packageImports(text: string): string[] {
  const specifiers = allSpecifiers(text).filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
  return [
    ...new Set(
      specifiers.map((s) =>
        s
          .split('/')
          .slice(0, s.startsWith('@') ? 2 : 1)
          .join('/'),
      ),
    ),
  ];
}

/** The graph of source texts keyed by their path under src/; specifiers resolve `.js` to the `.ts` file. */
export function graphOf(sources: ReadonlyMap<string, string>): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const targets = importSpecifiers(text).map((s) =>
      posix.normalize(posix.join(posix.dirname(file), s.replace(/\.js$/, '.ts'))),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every `.ts` file under `dir`, read, keyed by its path relative to `dir`. */
export function readSources(dir: string): Map<string, string> {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => {
      const p = join(d, n);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });
  return new Map(walk(dir).map((p) => [relative(dir, p).split('\\').join('/'), readFileSync(p, 'utf8')]));
}

/** The area of a module: its top-level folder under src/, or a top-level file's name without `.ts`. */
export function areaOf(file: string): string {
  const [first, ...rest] = file.split('/');
  return rest.length ? first! : first!.replace(/\.ts$/, '');
}

/**
 * Imports against an order: `allowed[area]` lists the areas it may import (its own always). A module of an area
 * the table does not name is reported too (with `to` the area), so a new folder must take its place in the order.
 */
export function orderViolations(
  graph: ImportGraph,
  allowed: Readonly<Record<string, readonly string[]>>,
  area: (file: string) => string = areaOf,
): Edge[] {
  const out: Edge[] = [];
  for (const [from, targets] of graph) {
    const mine = area(from);
    const may = allowed[mine];
    if (!may) {
      out.push({ from, to: `(area ${mine} is not in the order)` });
      continue;
    }
    for (const to of targets) if (area(to) !== mine && !may.includes(area(to))) out.push({ from, to });
  }
  return out;
}

/** Imports from modules under `from` (a folder prefix) to modules under any of `forbidden`. */
export function folderViolations(graph: ImportGraph, from: string, forbidden: readonly string[]): Edge[] {
  const under = (file: string, folder: string) => file.startsWith(`${folder}/`);
  return [...graph].flatMap(([file, targets]) =>
    under(file, from)
      ? targets.filter((t) => forbidden.some((f) => under(t, f))).map((to) => ({ from: file, to }))
      : [],
  );
}

/**
 * The import cycles: one per strongly connected component of more than one module (or a module importing
 * itself), written as a closed path `a -> b -> a` through that component, then the component's other modules.
 */
export function cycles(graph: ImportGraph): string[] {
  return components(graph).map((scc) => {
    const path = cyclePath(graph, scc);
    const others = scc.filter((m) => !path.includes(m));
    return path.join(' -> ') + (others.length ? ` (the same circle: ${others.join(', ')})` : '');
  });
}

/** Tarjan's strongly connected components that contain a cycle. */
function components(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** A shortest closed path from the component's first module back to it, inside the component. */
function cyclePath(graph: ImportGraph, scc: readonly string[]): string[] {
  const start = scc[0]!;
  const inside = new Set(scc);
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = previous.get(u)!) path.unshift(u);
        return [start, ...path];
      }
      if (inside.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...scc, start];
}
