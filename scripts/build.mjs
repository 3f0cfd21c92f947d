/**
 * `npm run build`: compiles src/ to dist/, copies the files the app reads at run time (the OpenAPI description
 * and the Swagger UI plugin) and bundles the explorer's page script from web/ (scripts/bundle-explore.mjs). With
 * `--if-stale` it builds only when dist/ is missing or older than a source file, so `npm start` always runs code
 * that matches the sources.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bundleExplore } from './bundle-explore.mjs';

const ASSETS = ['server/plugins/openapi/description.md', 'server/plugins/openapi/swagger-ui-plugin.js'];

function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

const stale =
  !existsSync('dist/server.js') ||
  !existsSync('dist/explore/explore.js') ||
  !existsSync('dist/explore/explore-app.js') ||
  statSync('dist/server.js').mtimeMs < Math.max(newest('src'), newest('web'));
if (process.argv.includes('--if-stale') && !stale) process.exit(0);
rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
for (const a of ASSETS) {
  mkdirSync(join('dist', a, '..'), { recursive: true });
  copyFileSync(join('src', a), join('dist', a));
}
await bundleExplore();
