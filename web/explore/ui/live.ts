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

export function livePanel(): Live {
  const status = statusLine();
  const problem = h('div');
  const list = h('ol', { class: 'events live-events', 'aria-label': 'New events, newest first' });
  // Enabled once the page knows what to follow (setPath).
  const toggle = h('button', { type: 'button', 'aria-pressed': 'false', text: 'Follow new events', disabled: true });
  let path = '';
  let controller: AbortController | undefined;
  let received = 0;

  const stop = () => {
    controller?.abort();
    controller = undefined;
    toggle.textContent = 'Follow new events';
    toggle.setAttribute('aria-pressed', 'false');
  };

  const show = (data: string) => {
    let node: JsonNode;
    try {
      node = parseJsonTree(data);
    } catch {
      return;
    }
    received++;
    list.prepend(h('li', { class: 'event' }, jsonView(node, 1)));
    while (list.children.length > SHOWN) list.lastElementChild?.remove();
    list.dataset.rows = String(received);
    status.textContent = `Following: ${received} new event${received === 1 ? '' : 's'}.`;
  };

  const follow = async (signal: AbortSignal) => {
    const parser = new SseParser();
    for (let attempt = 0; attempt <= RETRIES && !signal.aborted; attempt++) {
      try {
        const extraHeaders: Record<string, string> =
          parser.lastEventId === undefined ? {} : { 'Last-Event-ID': parser.lastEventId };
        const res = await call(path, { accept: 'text/event-stream', signal, extraHeaders });
        const type = res.headers.get('content-type') ?? '';
        if (!type.startsWith('text/event-stream')) {
          throw new Error(`the gateway answered ${type || 'no content type'}, not an event stream`);
        }
        if (!received) status.textContent = 'Following: waiting for new events…';
        attempt = 0;
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const ev of parser.push(value)) {
            if (ev.event === 'message') show(ev.data);
            // A failure after the stream began: the API's error object, then the transfer ends (no reconnect).
            else if (ev.event === 'error') throw new Error(apiMessage(ev.data));
          }
        }
      } catch (err) {
        if (isAbort(err) || signal.aborted) return;
        // A dropped connection (or the gateway unreachable or restarting) is retried; a refusal is shown.
        const retryable =
          err instanceof TypeError || (err instanceof ApiFailure && (err.status === 0 || err.status >= 502));
        if (!retryable) {
          fill(problem, errorBox(messageOf(err)));
          status.textContent = '';
          stop();
          return;
        }
      }
      if (signal.aborted) return;
      status.textContent = 'Connection lost: reconnecting…';
      await new Promise((r) => setTimeout(r, 1000 * 2 ** attempt));
    }
    if (!signal.aborted) {
      fill(problem, errorBox('the live view lost its connection; press Follow to start again'));
      stop();
    }
  };

  const start = () => {
    stop();
    problem.replaceChildren();
    list.replaceChildren();
    received = 0;
    status.textContent = 'Connecting…';
    const mine = (controller = new AbortController());
    toggle.textContent = 'Stop following';
    toggle.setAttribute('aria-pressed', 'true');
    void follow(mine.signal);
  };

  toggle.addEventListener('click', () => (controller ? stop() : start()));
  return {
    element: section(
      'live',
      'Live',
      h('p', { text: 'New events as they arrive, with the filters and columns above.' }),
      toggle,
      status,
      problem,
      list,
    ),
    setPath(next) {
      const restart = controller !== undefined && next !== path;
      path = next;
      toggle.disabled = false;
      if (restart) start();
    },
    stop,
  };
}
