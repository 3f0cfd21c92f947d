/**
 * The explorer's pages (bundled by `npm run build` into dist/explore/explore-app.js, with uPlot), started by the
 * script's first part (main.ts) with the API requests it has already made: the page is told apart by its path,
 * `/explore` or `/explore/{topic}`.
 */
import { credentialsForm } from './ui/credentials.js';
import type { FirstRequests } from './ui/first-requests.js';
import { overviewPage } from './ui/overview.js';
import { topicPage } from './ui/topic-page.js';

export function start(first: FirstRequests): void {
  performance.mark('tg-app');
  const main = document.getElementById('main')!;
  const page = first.page === 'topic' ? topicPage(main, first.topic, first.rate) : overviewPage(main, first);
  credentialsForm(document.getElementById('credentials')!, () => page.reload());
}
