/**
 * The explorer's assets (src/routes/explore.ts serves them): web/explore/main.ts with uPlot and the style sheets,
 * bundled by esbuild into dist/explore/explore.js and explore.css, minified, licences kept at the end of each file.
 */
import { build } from 'esbuild';

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
