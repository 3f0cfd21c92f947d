/**
 * A Server-Sent Events client for the follow tests, as a browser's EventSource reads a stream (the WHATWG HTML
 * standard, "Server-sent events"): blocks end at a blank line; `id:` sets the last event id (with or without data),
 * `data:` makes an event, `:` starts a comment. Only whole blocks count, so a stream cut mid-event resumes from the
 * id of the last whole one.
 */
import http from 'node:http';
import type { HttpTrino } from '../src/trino/http-trino.js';

export interface FollowEvent {
  id?: string;
  /** The `event:` field (absent: a message). */
  event?: string;
  data: string;
}

export interface EventStream {
  status: number;
  /** The body as received so far. */
  text: string;
  events: FollowEvent[];
  /** The id of the last whole block that had one. */
  lastId?: string;
  comments: number;
  /** The server ended the response (or the connection). */
  ended: boolean;
  /** Resolves once `ok(this)` holds (checked on each chunk); rejects after `timeoutMs` or when the stream ends. */
  waitFor(ok: (s: EventStream) => boolean, timeoutMs?: number): Promise<void>;
  /** Cuts the connection (the client goes away). */
  cut(): void;
}

/**
 * Opens `url` as an event stream (with `Last-Event-ID` when given, and `headers`, credentials say); resolves once
 * the headers are in.
 */
export function openEvents(
  url: string,
  o: { lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...o.headers };
    if (o.lastEventId !== undefined) headers['last-event-id'] = o.lastEventId;
    const req = http.get(url, { headers }, (res) => {
      let pending = '';
      let ended = false;
      const waiters = new Set<() => void>();
      const s: EventStream = {
        status: res.statusCode!,
        text: '',
        events: [],
        comments: 0,
        ended: false,
        waitFor(ok, timeoutMs = 10_000) {
          return new Promise<void>((done, fail) => {
            const timer = setTimeout(
              () => finish(new Error(`timed out after ${timeoutMs} ms: ${s.text.slice(-300)}`)),
              timeoutMs,
            );
            const check = () => {
              if (ok(s)) finish();
              else if (ended) finish(new Error(`the stream ended: ${s.text.slice(-300)}`));
            };
            const finish = (err?: Error) => {
              clearTimeout(timer);
              waiters.delete(check);
              if (err) fail(err);
              else done();
            };
            waiters.add(check);
            check();
          });
        },
        cut: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        s.text += chunk;
        pending += chunk;
        for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
          block(s, pending.slice(0, end));
          pending = pending.slice(end + 2);
        }
        for (const w of [...waiters]) w();
      });
      const over = () => {
        ended = true;
        s.ended = true;
        for (const w of [...waiters]) w();
      };
      res.on('end', over);
      res.on('error', over);
      res.on('close', over);
      resolve(s);
    });
    req.on('error', (err) => {
      if (!req.destroyed || !(err as NodeJS.ErrnoException).code?.startsWith('ECONNRESET')) reject(err);
    });
  });
}

function block(s: EventStream, text: string): void {
  let id: string | undefined;
  let event: string | undefined;
  const data: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) s.comments++;
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (id !== undefined) s.lastId = id;
  if (data.length) s.events.push({ id, ...(event !== undefined && { event }), data: data.join('\n') });
}

/** The ids of the queries of Trino user `user` naming `table` that have not ended (a follower's polls). */
export async function runningQueries(trino: HttpTrino, user: string, table: string): Promise<string[]> {
  const { rows } = await trino.all(
    `SELECT query_id FROM system.runtime.queries WHERE "user" = '${user}' AND query LIKE '%${table}%' ` +
      `AND state NOT IN ('FINISHED', 'FAILED')`,
  );
  return rows.map((r) => String(r[0]));
}

/** A query's state and error code in Trino. */
export async function queryState(trino: HttpTrino, id: string): Promise<{ state: string; error: string | null }> {
  const { rows } = await trino.all(
    `SELECT state, error_code FROM system.runtime.queries WHERE query_id = '${id.replace(/[^\w]/g, '')}'`,
  );
  return { state: String(rows[0]?.[0]), error: (rows[0]?.[1] as string | null) ?? null };
}

/** Resolves once `ok()` holds, checking every 50 ms; rejects after `timeoutMs` naming `what`. */
export async function untilTrue(ok: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
