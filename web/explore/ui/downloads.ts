/**
 * The download menu: the window with the builder's filters and select as one file in every format (`limit=all`),
 * and for big windows a read session (API.md "Read sessions"): its streams as links that work without a
 * credential until the session expires, read in parallel by the browser or any tool.
 */
import { isAbort, messageOf, call, postJson, topicPath } from './api.js';
import { credential } from './credentials.js';
import { h, fill, section, errorBox, formatCount, statusLine } from './dom.js';

export const FORMATS = [
  { format: 'ndjson', label: 'NDJSON' },
  { format: 'csv', label: 'CSV' },
  { format: 'json', label: 'JSON' },
  { format: 'arrow', label: 'Arrow' },
  { format: 'parquet', label: 'Parquet' },
] as const;

/** Above this many events, the panel recommends a read session over one file. */
export const SESSION_ADVISED = 1_000_000;

interface SessionCreated {
  expiresAt: string;
  streams: { index: number; url: string; since: string; until: string; estimatedRows: number }[];
}

export interface Downloads {
  element: HTMLElement;
  update(args: {
    topic: string;
    readPath: (extra: [string, string][]) => string;
    sessionBody: object;
    rows?: number;
  }): void;
}

/** Saves a response body under a file name (the browser's download). */
function save(href: string, name: string): void {
  const a = h('a', { href, download: name, class: 'sr-only' });
  document.body.append(a);
  a.click();
  a.remove();
}

export function downloadsPanel(): Downloads {
  const status = statusLine();
  const advice = h('p', { class: 'hint' });
  const problem = h('div');
  const streams = h('div', { class: 'streams' });
  let current: Parameters<Downloads['update']>[0] | undefined;

  const download = async (format: string) => {
    if (!current) return;
    const path = current.readPath([
      ['limit', 'all'],
      ['format', format],
    ]);
    const name = `${current.topic}.${format}`;
    problem.replaceChildren();
    // Without a credential the browser fetches the file itself, streaming it to disk.
    if (!credential()) return save(path, name);
    status.textContent = `Fetching ${name}…`;
    try {
      const blob = await (await call(path, { accept: '*/*' })).blob();
      const url = URL.createObjectURL(blob);
      save(url, name);
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      status.textContent = `${name}: ${formatCount(blob.size)} bytes.`;
    } catch (err) {
      if (isAbort(err)) return;
      status.textContent = '';
      fill(problem, errorBox(messageOf(err)));
    }
  };

  const sessionFormat = h(
    'select',
    { id: 'session-format' },
    FORMATS.map((f) => h('option', { value: f.format, text: f.label, selected: f.format === 'parquet' })),
  );
  const makeSession = async () => {
    if (!current) return;
    problem.replaceChildren();
    status.textContent = 'Making a read session…';
    try {
      const s = await postJson<SessionCreated>(topicPath(current.topic, '/sessions'), {
        ...current.sessionBody,
        presign: true,
      });
      const format = sessionFormat.value;
      status.textContent = `${s.streams.length} streams, readable without a credential until ${s.expiresAt}.`;
      fill(
        streams,
        h(
          'ol',
          { class: 'stream-links' },
          s.streams.map((st) =>
            h(
              'li',
              {},
              h('a', {
                href: `${st.url}&format=${format}`,
                download: `${current!.topic}-${st.index}.${format}`,
                text: `stream ${st.index}: ${st.since} – ${st.until} (about ${formatCount(st.estimatedRows)} events)`,
              }),
            ),
          ),
        ),
      );
    } catch (err) {
      status.textContent = '';
      fill(problem, errorBox(messageOf(err)));
    }
  };

  return {
    element: section(
      'downloads',
      'Download',
      h('p', { text: 'The window with these filters and columns, as one file:' }),
      h(
        'div',
        { class: 'tools', role: 'group', 'aria-label': 'Download formats' },
        FORMATS.map((f) =>
          h('button', {
            type: 'button',
            'data-format': f.format,
            text: f.label,
            onclick: () => void download(f.format),
          }),
        ),
      ),
      advice,
      h(
        'div',
        { class: 'tools' },
        h('label', { for: 'session-format', text: 'Read session as' }),
        sessionFormat,
        h('button', { type: 'button', text: 'Make a read session', onclick: () => void makeSession() }),
      ),
      status,
      problem,
      streams,
    ),
    update(args) {
      current = args;
      streams.replaceChildren();
      advice.textContent =
        args.rows !== undefined && args.rows > SESSION_ADVISED
          ? `${formatCount(args.rows)} events: a read session splits them into streams that download in parallel.`
          : 'For big windows, a read session splits the events into streams that download in parallel.';
    },
  };
}
