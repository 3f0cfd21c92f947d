/**
 * Comments state the rule, and name files that exist; functions stay short (STYLE.md "House style"). Every source
 * file of src/, scripts/, test/ and bench/ is parsed by the TypeScript compiler: a comment naming a .ts/.mjs/.js
 * file that does not exist fails, so does a comment citing an issue number, and a function of src/ over 60 lines
 * (declarations, methods, accessors, arrows and function expressions, from their first line to their last). The
 * checks are first tried on small inputs, so a check that cannot fail fails here. No two files of src/ share a name.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder, issueCitations, readSources, scannedComments, staleFileNames } from '../source-walk.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_FUNCTION_LINES = 60;

const comments = (text: string) => scannedComments(text);

describe('the checks, on small inputs', () => {
  const files = ['src/query/passes/limit.ts', 'src/core/errors.ts', 'scripts/build.mjs', 'README.md'];

  it.each([
    ['// the limit pass (passes/limit.ts)', []],
    ['/** see src/core/errors.ts and core/errors.js */', []],
    ['// built by scripts/build.mjs into dist/server.js', []],
    ['// the guardrail (passes/passes.ts)', ['1: passes/passes.ts']],
    ['/**\n * decoded by\n * registry/payload-decoder.ts\n */', ['3: registry/payload-decoder.ts']],
    ['// bare names count when they end in .ts: paging.ts', ['1: paging.ts']],
    ['// not a project file: Node.js, https://example.com/a.js, @fastify/swagger-ui/lib/serialize.js', []],
    ['// a glob: src/encode/text/*-encoder.ts', []],
    ["const s = '// registry/payload-decoder.ts';", []],
  ])('%j names stale files %j', (text, stale) => {
    expect(staleFileNames(comments(text), files)).toEqual(stale);
  });

  it.each([
    ['// the bound on each batch (issue 31 item 2)', 1],
    ['/** The targets of issues 12 and 15 */', 1],
    ['// fixed in #123', 1],
    ['// the bound on each batch: a pushed filter that bounds nothing does not lift it', 0],
    ["// '&#39;' is an entity, 4 MiB, color #fff", 0],
    ["const s = 'issue 12';", 0],
  ])('%j cites %d issue numbers', (text, count) => {
    expect(issueCitations(comments(text))).toHaveLength(count);
  });
});

describe('src/, scripts/, test/, bench/', () => {
  const sources = readSources(ROOT, ['src', 'scripts', 'test', 'bench']);
  const files = filesUnder(ROOT);

  it('every source file is read', () => {
    expect(sources.length).toBeGreaterThan(400);
    expect(sources.filter((s) => s.file.startsWith('src/') && s.functions.length > 0).length).toBeGreaterThan(100);
  });

  it('no two files of src/ share a name: one name per thing', () => {
    const byName = new Map<string, string[]>();
    for (const f of files.filter((x) => x.startsWith('src/') && x.endsWith('.ts'))) {
      const name = f.slice(f.lastIndexOf('/') + 1);
      byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });

  it('no comment names a file that does not exist', () => {
    expect(sources.flatMap((s) => staleFileNames(s.comments, files).map((x) => `${s.file}:${x}`))).toEqual([]);
  });

  it('no comment cites an issue number: it states the rule or the spec section instead', () => {
    expect(sources.flatMap((s) => issueCitations(s.comments).map((x) => `${s.file}:${x}`))).toEqual([]);
  });

  it(`no function of src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sources
      .filter((s) => s.file.startsWith('src/'))
      .flatMap((s) =>
        s.functions
          .filter((f) => f.lines > MAX_FUNCTION_LINES)
          .map((f) => `${s.file}:${f.line} ${f.name} (${f.lines} lines)`),
      );
    expect(long).toEqual([]);
  });
});
