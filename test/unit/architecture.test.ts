/**
 * The house by pipeline stage (STYLE.md): imports only go down the pipeline, type imports included, and no two
 * modules import each other through any path. This test reads every import of every file under src/ (`import type`,
 * `export ... from` and dynamic `import()` too) and fails on an import against the order below or on a cycle. The
 * checks are first tried on small graphs, so a check that cannot fail fails here.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  areaOf,
  cycles,
  folderViolations,
  graphOf,
  importSpecifiers,
  orderViolations,
  packageImports,
  readSources,
  type Edge,
} from '../import-graph.js';

const READ_DEPS = ['core', 'config', 'query', 'trino', 'blob', 'encode'];

/**
 * What a feature keeping state for its callers (cursors, sessions, loads) may import: the read pipeline, the state
 * room (state/: the databases' pools, transactions, DDL lock, opening and failures, below every feature) and access
 * (who calls and what it may do: a layer under the features, importing none of them). Never another feature.
 */
const FEATURE_DEPS = [...READ_DEPS, 'read', 'state', 'access'];

/** Each area and the areas it may import (its own always): the stage order. src/server.ts is of area `server`. */
const ORDER: Readonly<Record<string, readonly string[]>> = {
  core: [],
  config: ['core'],
  query: ['core', 'config'],
  encode: ['core'],
  /** The file cache of settled windows: files on disk, nothing of the pipeline. */
  files: ['core'],
  blob: ['core', 'config', 'query'],
  trino: ['core'],
  read: READ_DEPS,
  state: ['core', 'config'],
  access: [...READ_DEPS, 'read', 'state'],
  cursors: FEATURE_DEPS,
  sessions: FEATURE_DEPS,
  loads: FEATURE_DEPS,
  entry: [...READ_DEPS, 'read', 'access', 'sessions'],
  /** The Flight SQL entrance (gRPC): an adapter over the read entry, beside the HTTP one and importing none of it. */
  flight: [...FEATURE_DEPS, 'entry', 'sessions'],
  http: [...FEATURE_DEPS, 'entry', 'cursors', 'sessions', 'loads', 'files'],
  mcp: [...FEATURE_DEPS, 'entry'],
  routes: [...FEATURE_DEPS, 'entry', 'cursors', 'sessions', 'loads', 'http', 'mcp'],
  server: [...FEATURE_DEPS, 'entry', 'cursors', 'sessions', 'loads', 'http', 'mcp', 'routes', 'flight'],
};

/**
 * Inside query/: the node tree knows no step that uses it (no pass, no compiler, not the request schema), and the
 * compiler reads only the tree (no pass, no request text). The SQL subset's parser (query/statement) produces a
 * request body: it knows no pass, compiler or SQL text, and nothing of the request steps reads SQL.
 */
const QUERY_FOLDERS: [string, string[]][] = [
  ['query/tree', ['query/passes', 'query/sql', 'query/request', 'query/statement']],
  ['query/sql', ['query/passes', 'query/request', 'query/statement']],
  ['query/request', ['query/statement']],
  ['query/statement', ['query/passes', 'query/sql', 'query/follow']],
];

/** Whether a package is fastify's (fastify itself, its plugins, `@fastify/*`). */
const isFastify = (p: string) => p === 'fastify' || p.startsWith('fastify-') || p.startsWith('@fastify/');

/**
 * The read entry knows no transport: what its modules import of fastify or of the HTTP entrance (http/), type
 * imports included.
 */
function transportImports(sources: ReadonlyMap<string, string>): string[] {
  const graph = graphOf(new Map(sources));
  return [...sources]
    .filter(([file]) => areaOf(file) === 'entry')
    .flatMap(([file, text]) => [
      ...packageImports(text)
        .filter(isFastify)
        .map((p) => `${file} -> ${p}`),
      ...(graph.get(file) ?? []).filter((to) => areaOf(to) === 'http').map((to) => `${file} -> ${to}`),
    ]);
}

const show = (edges: Edge[]) => edges.map((e) => `${e.from} -> ${e.to}`);
const graphFrom = (files: Record<string, string>) => graphOf(new Map(Object.entries(files)));

describe('the checks, on small graphs', () => {
  it.each([
    ["import { a } from './a.js';", ['./a.js']],
    ["import type { A } from '../x/a.js';", ['../x/a.js']],
    ["import { type A, type B } from './a.js';", ['./a.js']],
    ["import './side-effect.js';", ['./side-effect.js']],
    ["export * from './a.js';", ['./a.js']],
    ["export { a, type B } from './a.js';", ['./a.js']],
    ["export type { A } from './a.js';", ['./a.js']],
    ["const m = await import('./lazy.js');", ['./lazy.js']],
    ["await app.register(import('../routes/docs.js'));", ['../routes/docs.js']],
    ["import {\n  a,\n  type B,\n} from './a.js';", ['./a.js']],
    ["import { Type } from 'typebox';", []],
    ["// import { a } from './a.js';\n/* import { b } from './b.js'; */", []],
    ["const s = 'import x from';", []],
  ])('%j imports %j', (text, specifiers) => {
    expect(importSpecifiers(text)).toEqual(specifiers);
  });

  it.each([
    ["import { Type } from 'typebox';\nimport { Value } from 'typebox/value';", ['typebox']],
    [
      "import type { FastifyInstance } from 'fastify';\nimport cors from '@fastify/cors';",
      ['fastify', '@fastify/cors'],
    ],
    ["import { readFileSync } from 'node:fs';\nimport { a } from './a.js';", []],
    [
      "const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');",
      ['@opentelemetry/exporter-trace-otlp-http'],
    ],
  ])('%j imports the packages %j', (text, packages) => {
    expect(packageImports(text)).toEqual(packages);
  });

  it('resolves specifiers to the files under src/', () => {
    const g = graphFrom({
      'query/tree/nodes.ts': "import type { T } from '../../core/trino-types.js';",
      'server.ts': "import { buildApp } from './server/app.js';",
    });
    expect(Object.fromEntries(g)).toEqual({
      'query/tree/nodes.ts': ['core/trino-types.ts'],
      'server.ts': ['server/app.ts'],
    });
  });

  it('a cycle of type imports is reported', () => {
    const g = graphFrom({
      'read/a.ts': "import type { B } from './b.js';",
      'read/b.ts': "import type { C } from './c.js';",
      'read/c.ts': "import type { A } from './a.js';",
      'read/d.ts': "import type { A } from './a.js';",
    });
    expect(cycles(g)).toEqual(['read/a.ts -> read/b.ts -> read/c.ts -> read/a.ts']);
  });

  it('a module importing itself is a cycle', () => {
    expect(cycles(graphFrom({ 'core/a.ts': "export type { A } from './a.js';" }))).toEqual(['core/a.ts -> core/a.ts']);
  });

  it('an import against the order is reported, type-only or not', () => {
    const g = graphFrom({
      'core/errors.ts': "import type { Config } from '../config/config.js';",
      'trino/port.ts': "import { x } from '../read/slices.js';",
      'read/slices.ts': "import { e } from '../core/errors.js';",
    });
    expect(show(orderViolations(g, ORDER))).toEqual([
      'core/errors.ts -> config/config.ts',
      'trino/port.ts -> read/slices.ts',
    ]);
  });

  it('a feature importing another feature, or the state room importing a feature, is reported', () => {
    const g = graphFrom({
      'loads/postgres-load-store.ts': "import { pgTransaction } from '../cursors/pg-transaction.js';",
      'access/pg-rate-store.ts': "import { quoteIdent } from '../cursors/postgres-store.js';",
      'sessions/stream-principal.ts': "import type { Principal } from '../access/principal.js';",
      'cursors/cursor-keys.ts': "import type { StatefulCaller } from '../access/stateful-caller.js';",
      'state/open-state.ts': "import type { LoadStore } from '../loads/load-store.js';",
    });
    expect(show(orderViolations(g, ORDER))).toEqual([
      'loads/postgres-load-store.ts -> cursors/pg-transaction.ts',
      'access/pg-rate-store.ts -> cursors/postgres-store.ts',
      'state/open-state.ts -> loads/load-store.ts',
    ]);
  });

  it('a module of an area outside the order is reported', () => {
    const g = graphFrom({ 'exports/export.ts': "import { e } from '../core/errors.js';" });
    expect(show(orderViolations(g, ORDER))).toEqual(['exports/export.ts -> (area exports is not in the order)']);
  });

  it('an import between forbidden folders is reported', () => {
    const g = graphFrom({
      'query/tree/nodes.ts': "import type { P } from '../passes/limit.js';",
      'query/passes/limit.ts': "import type { N } from '../tree/nodes.js';",
    });
    expect(show(folderViolations(g, 'query/tree', ['query/passes', 'query/sql']))).toEqual([
      'query/tree/nodes.ts -> query/passes/limit.ts',
    ]);
  });

  it('the read entry importing fastify or the HTTP entrance is reported, type-only or not', () => {
    const files = new Map(
      Object.entries({
        'entry/open-read.ts': "import type { FastifyReply } from 'fastify';\nimport { r } from '../read/open-page.js';",
        'entry/plan-read.ts': "import type { S } from '../http/stream-read.js';\nimport fp from 'fastify-plugin';",
        'http/stream-read.ts': "import type { FastifyReply } from 'fastify';",
        'read/open-page.ts': '',
      }),
    );
    expect(transportImports(files)).toEqual([
      'entry/open-read.ts -> fastify',
      'entry/plan-read.ts -> fastify-plugin',
      'entry/plan-read.ts -> http/stream-read.ts',
    ]);
  });

  it('a clean graph passes every check', () => {
    const g = graphFrom({
      'core/errors.ts': '',
      'config/config.ts': "import type { E } from '../core/errors.js';",
      'query/tree/nodes.ts': "import { e } from '../../core/errors.js';",
      'query/sql/compile.ts': "import type { N } from '../tree/nodes.js';",
      'server/app.ts': "import { c } from '../query/sql/compile.js';\nimport type { C } from '../config/config.js';",
      'server.ts': "const app = await import('./server/app.js');",
    });
    expect(orderViolations(g, ORDER)).toEqual([]);
    expect(QUERY_FOLDERS.flatMap(([from, not]) => folderViolations(g, from, not))).toEqual([]);
    expect(cycles(g)).toEqual([]);
  });
});

describe('src/', () => {
  const graph = graphOf(readSources(fileURLToPath(new URL('../../src', import.meta.url))));

  it('every module is read, and every area has its place in the order', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...new Set([...graph.keys()].map(areaOf))].sort()).toEqual(Object.keys(ORDER).sort());
  });

  it('every import goes down the stage order', () => {
    expect(show(orderViolations(graph, ORDER))).toEqual([]);
  });

  it('query/: the tree imports no pass, compiler or request schema; the compiler no pass or request parser', () => {
    expect(show(QUERY_FOLDERS.flatMap(([from, not]) => folderViolations(graph, from, not)))).toEqual([]);
  });

  it('the read entry imports nothing of fastify or of http/, type imports included', () => {
    expect(transportImports(readSources(fileURLToPath(new URL('../../src', import.meta.url))))).toEqual([]);
  });

  it('no import cycle, counting type imports', () => {
    expect(cycles(graph)).toEqual([]);
  });
});

describe('packages', () => {
  const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
  const pkg = JSON.parse(readFileSync(root('package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const runtime = new Set(Object.keys(pkg.dependencies ?? {}));
  const all = new Set([...runtime, ...Object.keys(pkg.devDependencies ?? {})]);
  const undeclared = (folder: string, declared: ReadonlySet<string>) =>
    [...readSources(root(folder))].flatMap(([file, text]) =>
      packageImports(text)
        .filter((p) => !declared.has(p))
        .map((p) => `${folder}/${file} -> ${p}`),
    );

  it('src/ imports only declared runtime dependencies (one TypeBox: the declared one)', () => {
    expect(undeclared('src', runtime)).toEqual([]);
    expect(runtime.has('typebox') && !all.has('@sinclair/typebox')).toBe(true);
  });

  it('tests, scripts and benchmarks import only declared packages', () => {
    expect(['test', 'scripts', 'bench'].flatMap((f) => undeclared(f, all))).toEqual([]);
  });
});
