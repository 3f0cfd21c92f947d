/**
 * Server-Sent Events read from a fetch body (EventSource cannot send the credential header): text in, events out,
 * by the WHATWG rules (lines end in CRLF, LF or CR; `data` lines joined by LF; `:` lines are comments; an event is
 * dispatched at a blank line; `id` sets the last event id, which a reconnect sends as Last-Event-ID).
 */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;
  /** The last `id` seen (kept across events, as the spec's last event ID buffer). */
  lastEventId: string | undefined;

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    this.#buffer += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\n|\r/.exec(this.#buffer);
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (!m || (m[0] === '\r' && m.index === this.#buffer.length - 1)) break;
      const line = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      const ev = this.#line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return undefined;
      }
      const ev = { event: this.#event || 'message', data: this.#data.join('\n'), id: this.#id };
      this.#data = [];
      this.#event = '';
      return ev;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') this.#data.push(value);
    else if (name === 'event') this.#event = value;
    else if (name === 'id' && !value.includes('\0')) this.#id = this.lastEventId = value;
    return undefined;
  }
}
