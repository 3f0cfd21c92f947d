/**
 * The README is the front door and docs/ the manual: the README stays under 300 lines, every relative link of either
 * leads to a file that exists (and to a heading of it, when it names one), every path of the repository a page names
 * exists, and the code map names every folder of src/ and every folder inside one, and each file it names is in the
 * folder of its line. Each check is first tried on a small text, so a check that cannot fail fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const PAGES = [
  'README.md',
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (outside code blocks). */
function anchorsIn(text: string): Set<string> {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? '')));
}

/** Relative link targets of a page, as [target, anchor]; web addresses left out. */
function linksIn(text: string): [string, string | undefined][] {
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
  return links
    .filter((l) => !/^[a-z]+:/.test(l))
    .map((l) => {
      const [target = '', anchor] = l.split('#');
      return [target, anchor];
    });
}

/** The links of `page` that lead nowhere: a missing file, or a heading its page lacks. */
function brokenLinks(page: string, text: string, readPage: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const [target, anchor] of linksIn(text)) {
    const path = target === '' ? page : relative(ROOT, join(ROOT, dirname(page), target));
    const linked = target === '' ? text : readPage(path);
    if (linked === undefined) broken.push(`${target} (no such file)`);
    else if (anchor !== undefined && path.endsWith('.md') && !anchorsIn(linked).has(anchor))
      broken.push(`${target}#${anchor} (no such heading)`);
  }
  return broken;
}

function readIfThere(path: string): string | undefined {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
}

/** Paths of the repository a page names (`src/...`, `test/...`, ...), not route paths such as `/docs/topics`. */
function repoPathsIn(text: string): string[] {
  const found = text.matchAll(/(?<![\w/.$-])(?:src|test|scripts|bench|examples|web|openapi|docs)\/[\w./*-]*/g);
  return [...new Set([...found].map((m) => m[0].replace(/[.:]+$/, '')))];
}

/** Whether a path exists; a `*` in its last part matches any run of characters. */
function pathExists(path: string): boolean {
  const base = path.replace(/\/$/, '').split('/').pop() ?? '';
  if (!base.includes('*')) return existsSync(join(ROOT, path));
  const dir = join(ROOT, dirname(path));
  const pattern = new RegExp(`^${base.split('*').map(escapeRegExp).join('.*')}$`);
  return existsSync(dir) && readdirSync(dir).some((f) => pattern.test(f));
}

/** The folders under `dir`, `depth` levels down at most, as paths from the root. */
function foldersOf(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  const subs = readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((d) => d.isDirectory());
  return subs.flatMap((d) => [`${dir}/${d.name}`, ...foldersOf(`${dir}/${d.name}`, depth - 1)]);
}

/** The names of the files and folders under `dir` (a file itself: its own name), at any depth. */
function filesUnder(dir: string): string[] {
  const full = join(ROOT, dir);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [dir.split('/').pop() ?? ''];
  return readdirSync(full, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? [d.name, ...filesUnder(`${dir}/${d.name}`)] : [d.name],
  );
}

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

describe('the front door and the manual', () => {
  it('the README is under 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThan(300);
  });

  it('a broken link or a missing heading is found', () => {
    const page = 'docs/x.md';
    const text = '# Here\n\n[a](security.md#no-such) [b](nothing.md) [c](#here) [d](#gone) [e](https://x.example/y)';
    const pages: Record<string, string> = { 'docs/security.md': '# Security\n\n## The security model\n' };
    expect(brokenLinks(page, text, (p) => pages[p])).toEqual([
      'security.md#no-such (no such heading)',
      'nothing.md (no such file)',
      '#gone (no such heading)',
    ]);
    expect(anchorOf('Loads run by Trino: topic into table')).toBe('loads-run-by-trino-topic-into-table');
  });

  it.each(PAGES)('every relative link of %s leads to a file and heading that exist', (page) => {
    expect(brokenLinks(page, read(page), readIfThere)).toEqual([]);
  });

  it('a path of the repository is told from a route', () => {
    expect(repoPathsIn('`/docs/topics`, `src/http/read-cache.ts`. And test/browser/explore*.test.ts: x')).toEqual([
      'src/http/read-cache.ts',
      'test/browser/explore*.test.ts',
    ]);
    expect(pathExists('src/no-such-folder/x.ts')).toBe(false);
    expect(pathExists('src/config/*-settings.ts')).toBe(true);
  });

  it.each(PAGES)('every path of the repository %s names exists', (page) => {
    expect(repoPathsIn(read(page)).filter((p) => !pathExists(p))).toEqual([]);
  });

  it('the code map names every folder of src/ and every folder inside one', () => {
    const map = read('docs/code-map.md');
    const folders = foldersOf('src', 2);
    expect(folders.length).toBeGreaterThan(15);
    expect(folders.filter((f) => !map.includes(`\`${f}/`))).toEqual([]);
  });

  it('every file the code map names is in the folder of its line', () => {
    const rows = [...read('docs/code-map.md').matchAll(/^\| `([\w./-]+)` +\| (.+?) *\|$/gm)];
    expect(rows.length).toBeGreaterThan(20);
    const missing = rows.flatMap(([, folder = '', text = '']) => {
      const there = new Set(filesUnder(folder.replace(/\/$/, '')));
      const named = [...text.matchAll(/`([\w.-]+\.(?:ts|mjs|js|sh))`/g)].map((m) => m[1] ?? '');
      return named.filter((n) => !there.has(n)).map((n) => `${folder}: ${n}`);
    });
    expect(missing).toEqual([]);
  });
});
