/**
 * The explorer's script (bundled by `npm run build` into dist/explore/explore.js with its style sheet): the page is
 * told apart by its path, `/explore` or `/explore/{topic}`.
 */
import 'uplot/dist/uPlot.min.css';
import './explore.css';
import { credentialsForm } from './ui/credentials.js';
import { overviewPage } from './ui/overview.js';
import { topicPage } from './ui/topic-page.js';

function start(): void {
  const main = document.getElementById('main')!;
  const m = /^\/explore\/([^/]+)\/?$/.exec(location.pathname);
  const page = m ? topicPage(main, decodeURIComponent(m[1]!)) : overviewPage(main);
  credentialsForm(document.getElementById('credentials')!, () => page.reload());
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
