/**
 * A read session as the client gets it (API.md "Read sessions"): an id, an expiry, and one URL per stream, each
 * carrying its sealed description (stream-token.ts). The split itself is planned in query/passes/session-split.ts.
 */
import { randomBytes } from 'node:crypto';
import type { SessionRead } from '../query/request/session-schema.js';
import type { StreamRange } from '../query/passes/session-split.js';
import type { StreamBinding } from './stream-principal.js';
import type { StreamTokens } from './stream-token.js';

export interface SessionStream {
  index: number;
  url: string;
  since: string;
  until: string;
  /** Left out when the count could not apply every row-policy conjunct (one on a decoded field). */
  estimatedRows?: number;
}

export interface Session {
  id: string;
  expiresAt: string;
  order: 'time' | 'none';
  streams: SessionStream[];
}

/** What a session is made of: the topic, what every stream reads, how it is bound, and when it expires. */
export interface SessionParts {
  topic: string;
  read: SessionRead;
  binding: StreamBinding;
  readerVersions: Partial<Record<'key' | 'value', number>>;
  expiresMs: number;
  /** The credential's own expiry (a JWT's exp), epoch ms: the streams are refused past it. */
  credentialExpiresMs?: number;
  /** The ranges' counts carry every row-policy conjunct of the caller: they may be shown as estimatedRows. */
  counted: boolean;
}

/** The path of a stream (relative to the API's origin, as `next` links are): its token in `token`. */
export function streamPath(topic: string, session: string, index: number, token: string): string {
  return `/v1/topics/${encodeURIComponent(topic)}/sessions/${session}/streams/${index}?token=${token}`;
}

/** The sealed descriptions of a session's streams over `ranges` (one each, in index order), and its new id. */
export function sealStreams(
  tokens: StreamTokens,
  parts: SessionParts,
  ranges: readonly StreamRange[],
): { id: string; tokens: string[] } {
  const id = randomBytes(12).toString('base64url');
  const sealed = ranges.map((range, index) =>
    tokens.seal({
      i: id,
      n: index,
      t: parts.topic,
      q: parts.read,
      f: range.since,
      u: range.until,
      ...parts.binding,
      x: parts.expiresMs,
      ...(parts.credentialExpiresMs !== undefined ? { e: parts.credentialExpiresMs } : {}),
      rv: parts.readerVersions,
    }),
  );
  return { id, tokens: sealed };
}

/** The session over `ranges`: one sealed stream each, in index order. */
export function makeSession(tokens: StreamTokens, parts: SessionParts, ranges: readonly StreamRange[]): Session {
  const { id, tokens: sealed } = sealStreams(tokens, parts, ranges);
  const iso = (ms: number) => new Date(ms).toISOString();
  const streams = ranges.map((range, index) => ({
    index,
    url: streamPath(parts.topic, id, index, sealed[index]!),
    since: iso(range.since),
    until: iso(range.until),
    ...(parts.counted ? { estimatedRows: range.estimatedRows } : {}),
  }));
  return { id, expiresAt: iso(parts.expiresMs), order: parts.read.order ?? 'time', streams };
}
