/**
 * The explorer's assets (src/routes/explore.ts serves them), bundled by esbuild, minified, licences kept at the end
 * of each file: web/explore/main.ts with the style sheets into dist/explore/explore.js and explore.css (the small
 * first part, which starts the page's first API requests), and web/explore/app.ts with uPlot into explore-app.js
 * (the pages, which main.ts imports by URL; the page shell preloads it). Each is also written precompressed
 * (`.br`, `.gz`) for the route to serve as the browser accepts. `npm run build` calls it; run alone
 * (`node scripts/bundle-explore.mjs`, as `npm run dev` does first) it bundles.
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const EXPLORE_ENTRY = 'web/explore/main.ts';
export const EXPLORE_APP = 'web/explore/app.ts';
export const EXPLORE_OUT = 'dist/explore';
/** What the route serves: each bundle's files. */
export const EXPLORE_FILES = ['explore.js', 'explore.css', 'explore-app.js'];

const OPTIONS = {
  bundle: true,
  format: 'esm',
  target: ['es2022', 'chrome111', 'firefox111', 'safari16'],
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
};

/** The smallest brotli and gzip of a file, beside it. */
function precompress(file) {
  const body = readFileSync(file);
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
}

export async function bundleExplore(outdir = EXPLORE_OUT) {
  await Promise.all([
    build({ ...OPTIONS, entryPoints: { explore: EXPLORE_ENTRY }, outdir }),
    build({ ...OPTIONS, entryPoints: { 'explore-app': EXPLORE_APP }, outdir }),
  ]);
  for (const name of EXPLORE_FILES) precompress(join(outdir, name));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleExplore();
