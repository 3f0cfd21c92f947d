/**
 * What the builder's query is, live: the URL of the read, the curl command, and from the explain route the SQL
 * Trino runs and which predicates the storage evaluates (pushed) and which Trino evaluates after the scan (residual).
 */
import { curlFor } from '../model/query-state.js';
import { getJson, isAbort, messageOf } from './api.js';
import { credential } from './credentials.js';
import { h, fill, section, errorBox, statusLine } from './dom.js';

interface Explain {
  sql: string;
  pushdown: { pushed: string[]; residual: string[]; gateway?: string[] };
  refused?: { code: string; message: string };
}

export interface QueryReport {
  element: HTMLElement;
  /** The URL and curl of a read (no request). */
  showUrl(readPath: string): void;
  show(readPath: string, explainPath: string): Promise<void>;
}

function list(id: string, title: string, items: readonly string[]): HTMLElement {
  return h(
    'div',
    { class: 'pushdown-list' },
    h('h3', { id, text: `${title} (${items.length})` }),
    items.length
      ? h(
          'ul',
          { 'aria-labelledby': id },
          items.map((p) => h('li', {}, h('code', { text: p }))),
        )
      : h('p', { class: 'muted', text: 'none' }),
  );
}

export function queryReport(): QueryReport {
  const url = h('a', { id: 'read-url', class: 'code-line' });
  const curl = h('pre', { id: 'read-curl', class: 'code-block', tabindex: 0 });
  const sql = h('pre', { id: 'read-sql', class: 'code-block', tabindex: 0 });
  const pushdown = h('div', { id: 'pushdown', class: 'pushdown' });
  const status = statusLine();
  let controller: AbortController | undefined;
  const showUrl = (readPath: string) => {
    // Not new URL(...).href, which would percent-encode the `>` of arrow paths.
    const absolute = location.origin + readPath;
    url.href = absolute;
    url.textContent = absolute;
    curl.textContent = curlFor(absolute, credential() !== null);
  };
  return {
    element: section(
      'query',
      'The query',
      h('h3', { text: 'URL' }),
      h('p', {}, url),
      h('h3', { text: 'curl' }),
      curl,
      h('h3', { text: 'SQL (from explain)' }),
      status,
      sql,
      pushdown,
    ),
    showUrl,
    async show(readPath, explainPath) {
      showUrl(readPath);
      controller?.abort();
      const mine = (controller = new AbortController());
      status.textContent = 'Explaining…';
      try {
        const e = await getJson<Explain>(explainPath, mine.signal);
        status.textContent = e.refused ? `Running it would be refused: ${e.refused.message}` : '';
        sql.textContent = e.sql;
        sql.dataset.path = explainPath;
        fill(
          pushdown,
          list('pushed-title', 'Pushed: the storage evaluates', e.pushdown.pushed),
          list('residual-title', 'Residual: Trino evaluates after the scan', e.pushdown.residual),
          e.pushdown.gateway ? list('gateway-title', 'Evaluated by the gateway', e.pushdown.gateway) : null,
        );
      } catch (err) {
        if (isAbort(err)) return;
        status.textContent = '';
        sql.textContent = '';
        fill(pushdown, errorBox(messageOf(err)));
      }
    },
  };
}
