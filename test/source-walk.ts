/**
 * The project's own sources as the TypeScript compiler parses them (typescript/unstable/sync: the program of
 * tsconfig.json, whose files are src/, scripts/, test/, bench/ ...), so a `//` inside a string or a regular
 * expression is never taken for a comment: the comments and the functions of each file, which the comment and
 * function-length guards check. Files outside the program (.mjs, .js) are read by the compiler's scanner.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { createScanner, getLeadingCommentRanges, getTrailingCommentRanges, SyntaxKind } from 'typescript/unstable/ast';
import type { Node, SourceFile } from 'typescript/unstable/ast';

export interface SourceComment {
  line: number;
  text: string;
}

export interface SourceFunction {
  name: string;
  line: number;
  lines: number;
}

export interface Source {
  /** Repository-relative, with `/`. */
  file: string;
  comments: SourceComment[];
  functions: SourceFunction[];
}

const FUNCTION_KINDS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
]);

const SKIP = new Set(['node_modules', 'dist', 'coverage']);

/** Every file under `dir` of `root` (no node_modules, dist or dot folders), repository-relative. */
export function filesUnder(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const path = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, path)).isDirectory()) out.push(...filesUnder(root, path));
    else out.push(path);
  }
  return out;
}

const lineOf = (starts: readonly number[], pos: number) => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
};

const lineStarts = (text: string) => [0, ...[...text.matchAll(/\n/g)].map((m) => m.index + 1)];

function functionName(node: Node): string {
  const name = (node as { name?: { text?: string } }).name;
  return name?.text ?? SyntaxKind[node.kind] ?? 'function';
}

/** The comments (each once) and the function-like nodes of one parsed file. */
function walkParsed(file: string, sf: SourceFile): Source {
  const text = sf.text;
  const starts = lineStarts(text);
  const seen = new Map<number, SourceComment>();
  const functions: SourceFunction[] = [];
  const addComments = (ranges: readonly { pos: number; end: number }[] | undefined) => {
    for (const r of ranges ?? []) {
      if (!seen.has(r.pos)) seen.set(r.pos, { line: lineOf(starts, r.pos), text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: Node) => {
    addComments(getLeadingCommentRanges(text, node.pos));
    addComments(getTrailingCommentRanges(text, node.end));
    if (FUNCTION_KINDS.has(node.kind)) {
      const line = lineOf(starts, node.getStart(sf));
      functions.push({ name: functionName(node), line, lines: lineOf(starts, node.end) - line + 1 });
    }
    node.forEachChild(visit);
  };
  visit(sf);
  addComments(getLeadingCommentRanges(text, sf.end));
  return { file, comments: [...seen.values()].sort((a, b) => a.line - b.line), functions };
}

/** The comments of a text the program does not hold, token by token (no functions: not measured). */
export function scannedComments(text: string): SourceComment[] {
  const starts = lineStarts(text);
  const scanner = createScanner(false);
  scanner.setText(text);
  const out: SourceComment[] = [];
  for (let kind = scanner.scan(); kind !== SyntaxKind.EndOfFile; kind = scanner.scan()) {
    if (kind === SyntaxKind.SingleLineCommentTrivia || kind === SyntaxKind.MultiLineCommentTrivia) {
      out.push({ line: lineOf(starts, scanner.getTokenStart()), text: scanner.getTokenText() });
    }
  }
  return out;
}

/**
 * Every source file of `dirs` (repository-relative folders): those of the tsconfig.json program parsed, the others
 * (.mjs, .js) scanned.
 */
export function readSources(root: string, dirs: readonly string[]): Source[] {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProject: join(root, 'tsconfig.json') }).getProjects()[0]!;
    const parsed = new Map<string, Source>();
    for (const name of project.program.getSourceFileNames()) {
      const file = relative(root, name).split('\\').join('/');
      if (file.startsWith('..') || file.includes('node_modules')) continue;
      if (!dirs.some((d) => file.startsWith(`${d}/`))) continue;
      parsed.set(file, walkParsed(file, project.program.getSourceFile(name)!));
    }
    const others = dirs
      .flatMap((d) => filesUnder(root, d))
      .filter((f) => /\.(m?js|ts)$/.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.d.mts') && !parsed.has(f));
    for (const file of others) {
      parsed.set(file, { file, comments: scannedComments(readFileSync(join(root, file), 'utf8')), functions: [] });
    }
    return [...parsed.values()].sort((a, b) => a.file.localeCompare(b.file));
  } finally {
    api.close();
  }
}

/** A comment citing an issue or pull request by number: the word issue (or issues) and a number, or `#` and digits. */
const ISSUE_CITATION = /\bissues?\s+#?\d+|(?<![\w&])#\d{2,}\b/i;

/**
 * A token that names a file of the project: a path with a folder ending in .ts, .mts, .mjs or .js, or a bare name
 * ending in .ts, .mts or .mjs. Not a URL, a glob, a file inside a package (after an `@` scope or a `/`), or a built
 * file under dist/.
 */
const FILE_TOKEN = /(?<![\w./*@:-])(?:\.{1,2}\/)*[\w-][\w.-]*(?:\/[\w.-]+)*\.(?:ts|mts|mjs|js)\b(?![\w/*])/g;

/** The lines of `comments` that cite an issue number, as `line: text`. */
export function issueCitations(comments: readonly SourceComment[]): string[] {
  return comments.flatMap((c) =>
    c.text.split('\n').flatMap((text, i) => (ISSUE_CITATION.test(text) ? [`${c.line + i}: ${text.trim()}`] : [])),
  );
}

/**
 * The file names in `comments` that name no file of `files` (repository-relative paths): a name matches a file when
 * it is the file's path or the end of it after a `/` (a name relative to any folder of the path), a `.js` name
 * also the `.ts` file it is built from.
 */
export function staleFileNames(comments: readonly SourceComment[], files: readonly string[]): string[] {
  const known = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 0; i < parts.length; i++) known.add(parts.slice(i).join('/'));
  }
  const names = (text: string) =>
    [...text.matchAll(FILE_TOKEN)]
      .map((m) => m[0])
      .filter((t) => (t.includes('/') || /\.(ts|mts|mjs)$/.test(t)) && !/^(\.{1,2}\/)*dist\//.test(t));
  const exists = (token: string) => {
    const t = token.replace(/^(\.{1,2}\/)+/, '');
    return [t, t.replace(/\.js$/, '.ts'), t.replace(/\.mjs$/, '.mts')].some((c) => known.has(c));
  };
  return comments.flatMap((c) =>
    c.text.split('\n').flatMap((text, i) => names(text).flatMap((t) => (exists(t) ? [] : [`${c.line + i}: ${t}`]))),
  );
}
