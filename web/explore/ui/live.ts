/**
 * The live view: follows the topic from now on (API.md "Following a topic": `follow=true`, Server-Sent Events) with
 * the builder's filters and select, newest event first. fetch reads the stream, since EventSource cannot send the
 * credential header; after a dropped connection it reconnects with Last-Event-ID, so nothing is missed or repeated.
 */
import { type JsonNode, parseJsonTree } from '../model/json-tree.js';
import { SseParser } from '../model/sse.js';
import { ApiFailure, call, isAbort, messageOf } from './api.js';
import { h, fill, section, errorBox, statusLine } from './dom.js';
import { jsonView } from './json-view.js';

const SHOWN = 100;
const RETRIES = 5;

/** The message of an `event: error` frame (`{"error": {"code", "message"}}`), or its text. */
function apiMessage(data: string): string {
  try {
    return (JSON.parse(data) as { error: { message: string } }).error.message;
  } catch {
    return data;
  }
}

export interface Live {
  element: HTMLElement;
  /** The follow URL for the builder's current query; a running view restarts with it. */
  setPath(path: string): void;
  stop(): void;
}

class LiveView {
  readonly #status = statusLine();
  readonly #problem = h('div');
  readonly #list = h('ol', { class: 'events live-events', 'aria-label': 'New events, newest first' });
  // Enabled once the page knows what to follow (setPath).
  readonly #toggle = h('button', {
    type: 'button',
    'aria-pressed': 'false',
    text: 'Follow new events',
    disabled: true,
  });
  readonly element = section(
    'live',
    'Live',
    h('p', { text: 'New events as they arrive, with the filters and columns above.' }),
    this.#toggle,
    this.#status,
    this.#problem,
    this.#list,
  );
  #path = '';
  #controller: AbortController | undefined;
  #received = 0;

  constructor() {
    this.#toggle.addEventListener('click', () => (this.#controller ? this.stop() : this.#start()));
  }

  setPath(next: string): void {
    const restart = this.#controller !== undefined && next !== this.#path;
    this.#path = next;
    this.#toggle.disabled = false;
    if (restart) this.#start();
  }

  stop(): void {
    this.#controller?.abort();
    this.#controller = undefined;
    this.#toggle.textContent = 'Follow new events';
    this.#toggle.setAttribute('aria-pressed', 'false');
  }

  #start(): void {
    this.stop();
    this.#problem.replaceChildren();
    this.#list.replaceChildren();
    this.#received = 0;
    this.#status.textContent = 'Connecting…';
    const mine = (this.#controller = new AbortController());
    this.#toggle.textContent = 'Stop following';
    this.#toggle.setAttribute('aria-pressed', 'true');
    void this.#follow(mine.signal);
  }

  #fail(message: string): void {
    fill(this.#problem, errorBox(message));
    this.#status.textContent = '';
    this.stop();
  }

  #show(data: string): void {
    let node: JsonNode;
    try {
      node = parseJsonTree(data);
    } catch {
      return;
    }
    const n = ++this.#received;
    this.#list.prepend(h('li', { class: 'event' }, jsonView(node, 1)));
    while (this.#list.children.length > SHOWN) this.#list.lastElementChild?.remove();
    this.#list.dataset.rows = String(n);
    this.#status.textContent = `Following: ${n} new event${n === 1 ? '' : 's'}.`;
  }

  /** Follows until stopped; a dropped connection resumes after the last event id, a few times, then gives up. */
  async #follow(signal: AbortSignal): Promise<void> {
    const parser = new SseParser();
    for (let attempt = 0; attempt <= RETRIES && !signal.aborted; attempt++) {
      try {
        // A connection that opened starts the count of tries again.
        await this.#read(parser, signal, () => (attempt = 0));
      } catch (err) {
        if (isAbort(err) || signal.aborted) return;
        // A dropped connection (or the gateway unreachable or restarting) is retried; a refusal is shown.
        const retryable =
          err instanceof TypeError || (err instanceof ApiFailure && (err.status === 0 || err.status >= 502));
        if (!retryable) return this.#fail(messageOf(err));
      }
      if (signal.aborted) return;
      this.#status.textContent = 'Connection lost: reconnecting…';
      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
    }
    if (!signal.aborted) this.#fail('the live view lost its connection; press Follow to start again');
  }

  /** One connection: its events shown until it ends (an `event: error` frame throws the API's message). */
  async #read(parser: SseParser, signal: AbortSignal, opened: () => void): Promise<void> {
    const extraHeaders: Record<string, string> =
      parser.lastEventId === undefined ? {} : { 'Last-Event-ID': parser.lastEventId };
    const res = await call(this.#path, { accept: 'text/event-stream', signal, extraHeaders });
    const type = res.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      throw new Error(`the gateway answered ${type || 'no content type'}, not an event stream`);
    }
    opened();
    if (!this.#received) this.#status.textContent = 'Following: waiting for new events…';
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const ev of parser.push(value)) {
        if (ev.event === 'message') this.#show(ev.data);
        // A failure after the stream began: the API's error object, then the transfer ends (no reconnect).
        else if (ev.event === 'error') throw new Error(apiMessage(ev.data));
      }
    }
  }
}

export function livePanel(): Live {
  return new LiveView();
}
