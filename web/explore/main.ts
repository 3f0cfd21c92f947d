/**
 * The explorer's script, its first part (bundled by `npm run build` into dist/explore/explore.js with the style
 * sheets): small, so that it runs as soon as it arrives and starts the page's first API requests from its URL alone
 * (first-requests.ts). The rest of the page's code (app.ts, bundled into explore-app.js, which the page shell
 * preloads beside this script) loads meanwhile, and takes those requests' answers.
 */
import 'uplot/dist/uPlot.min.css';
import './explore.css';
import { startFirstRequests } from './ui/first-requests.js';

performance.mark('tg-script');
const first = startFirstRequests(location);
// A URL relative to this script, not a module esbuild would bundle here: the page shell preloads the same URL.
const appUrl = new URL('explore-app.js', import.meta.url).href;
// The pages' code runs for a while (uPlot, the page's layout), and an answer is read only when the page is idle: on
// the overview it runs once the first sparkline is asked for (which needs the listing's answer first), or after
// FRAME_WAIT_MS, so that a slow listing does not keep the page's frame from showing.
const FRAME_WAIT_MS = 200;
const asked =
  first.page === 'overview'
    ? Promise.race([first.firstSpark.then(noop, noop), new Promise((r) => setTimeout(r, FRAME_WAIT_MS))])
    : Promise.resolve();
const app = asked.then(() => import(appUrl) as Promise<typeof import('./app.js')>);

function noop(): void {}

function start(): void {
  void app.then((m) => m.start(first));
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
