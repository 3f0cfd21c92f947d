/**
 * The explorer's assets (src/routes/explore.ts serves them): web/explore/main.ts with uPlot and the style sheets,
 * bundled by esbuild into dist/explore/explore.js and explore.css, minified, licences kept at the end of each file.
 * `npm run build` calls it; run alone (`node scripts/bundle-explore.mjs`, as `npm run dev` does first) it bundles.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

export const EXPLORE_ENTRY = 'web/explore/main.ts';
export const EXPLORE_OUT = 'dist/explore';

export async function bundleExplore(outdir = EXPLORE_OUT) {
  await build({
    entryPoints: { explore: EXPLORE_ENTRY },
    outdir,
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome111', 'firefox111', 'safari16'],
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleExplore();
