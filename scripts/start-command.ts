/**
 * The server as `npm start` runs it, for what starts it as a process of its own (the benchmark, the tests):
 * package.json's start script is `node <flags> dist/server.js`, and these are its Node flags.
 */
import { readFileSync } from 'node:fs';

/** The project's root (where package.json and dist/ are). */
export const PROJECT_ROOT = new URL('..', import.meta.url).pathname;

/** The Node flags of package.json's start script (`node <flags> dist/server.js`). */
export function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(`${PROJECT_ROOT}package.json`, 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/server.js')
    throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return words.slice(1, -1);
}
