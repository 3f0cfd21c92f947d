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

export interface DownloadTarget {
  topic: string;
  /** The read's path with these parameters added (limit, format). */
  readPath: (extra: [string, string][]) => string;
  /** The same read as a session's body (select, where, since, until). */
  sessionBody: object;
  /** Events in the window, when the chart has counted them. */
  rows?: number;
}

export interface Downloads {
  element: HTMLElement;
  update(target: DownloadTarget): void;
}

/** Saves a response body under a file name (the browser's download). */
function save(href: string, name: string): void {
  const a = h('a', { href, download: name, class: 'sr-only' });
  document.body.append(a);
  a.click();
  a.remove();
}

function streamLinks(topic: string, s: SessionCreated, format: string): HTMLElement {
  const link = (st: SessionCreated['streams'][number]) =>
    h('a', {
      href: `${st.url}&format=${format}`,
      download: `${topic}-${st.index}.${format}`,
      text: `stream ${st.index}: ${st.since} – ${st.until} (about ${formatCount(st.estimatedRows)} events)`,
    });
  return h(
    'ol',
    { class: 'stream-links' },
    s.streams.map((st) => h('li', {}, link(st))),
  );
}

class DownloadsPanel {
  readonly #status = statusLine();
  readonly #advice = h('p', { class: 'hint' });
  readonly #problem = h('div');
  readonly #streams = h('div', { class: 'streams' });
  readonly #sessionFormat = h(
    'select',
    { id: 'session-format' },
    FORMATS.map((f) => h('option', { value: f.format, text: f.label, selected: f.format === 'parquet' })),
  );
  readonly element: HTMLElement;
  #target: DownloadTarget | undefined;

  constructor() {
    const buttons = FORMATS.map((f) =>
      h('button', {
        type: 'button',
        'data-format': f.format,
        text: f.label,
        onclick: () => void this.#download(f.format),
      }),
    );
    const session = h('button', { type: 'button', text: 'Make a read session', onclick: () => void this.#session() });
    this.element = section(
      'downloads',
      'Download',
      h('p', { text: 'The window with these filters and columns, as one file:' }),
      h('div', { class: 'tools', role: 'group', 'aria-label': 'Download formats' }, buttons),
      this.#advice,
      h(
        'div',
        { class: 'tools' },
        h('label', { for: 'session-format', text: 'Read session as' }),
        this.#sessionFormat,
        session,
      ),
      this.#status,
      this.#problem,
      this.#streams,
    );
  }

  update(target: DownloadTarget): void {
    this.#target = target;
    this.#streams.replaceChildren();
    this.#advice.textContent =
      target.rows !== undefined && target.rows > SESSION_ADVISED
        ? `${formatCount(target.rows)} events: a read session splits them into streams that download in parallel.`
        : 'For big windows, a read session splits the events into streams that download in parallel.';
  }

  #failed(err: unknown): void {
    if (isAbort(err)) return;
    this.#status.textContent = '';
    fill(this.#problem, errorBox(messageOf(err)));
  }

  async #download(format: string): Promise<void> {
    const t = this.#target;
    if (!t) return;
    const path = t.readPath([
      ['limit', 'all'],
      ['format', format],
    ]);
    const name = `${t.topic}.${format}`;
    this.#problem.replaceChildren();
    // Without a credential the browser fetches the file itself, streaming it to disk.
    if (!credential()) return save(path, name);
    this.#status.textContent = `Fetching ${name}…`;
    try {
      const blob = await (await call(path, { accept: '*/*' })).blob();
      const url = URL.createObjectURL(blob);
      save(url, name);
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      this.#status.textContent = `${name}: ${formatCount(blob.size)} bytes.`;
    } catch (err) {
      this.#failed(err);
    }
  }

  async #session(): Promise<void> {
    const t = this.#target;
    if (!t) return;
    this.#problem.replaceChildren();
    this.#status.textContent = 'Making a read session…';
    try {
      const s = await postJson<SessionCreated>(topicPath(t.topic, '/sessions'), { ...t.sessionBody, presign: true });
      this.#status.textContent = `${s.streams.length} streams, readable without a credential until ${s.expiresAt}.`;
      fill(this.#streams, streamLinks(t.topic, s, this.#sessionFormat.value));
    } catch (err) {
      this.#failed(err);
    }
  }
}

export function downloadsPanel(): Downloads {
  return new DownloadsPanel();
}
