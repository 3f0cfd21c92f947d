/**
 * One stream of a read session as any entrance reads it (its URL, its file, a Flight SQL partition): the stream's
 * token already opened; its principal's grant checked again against the access in force, then the topic (grants),
 * its decoded fields pinned to the versions the session was made with, the caller's row scope (which must still be
 * the one the stream was sealed with), and the session's request over the stream's own time range.
 */
import { readRequestOfSession } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import { checkStreamGrant, checkStreamRows } from '../sessions/stream-principal.js';
import type { StreamBody } from '../sessions/stream-token.js';
import { readScopeOf, topicFor, withDecodedFields, type TopicCall } from './read-topic.js';

/** What a stream reads, for its caller: planned by the entrance as any `limit=all` read. */
export async function sessionStreamRead(call: TopicCall, s: StreamBody) {
  checkStreamGrant(s, call.principal, call.access.grants);
  const decode = s.q.decode !== false;
  const model = await topicFor(call, s.t);
  const { topic, readerVersions } = await withDecodedFields(call.services, model, decode, s.rv);
  const rows = readScopeOf(call, topic);
  checkStreamRows(s, rows);
  const window = { since: new Date(s.f).toISOString(), until: new Date(s.u).toISOString() };
  const req = readRequestOfSession(s.q, window, resolver(topic));
  return { topic, req, rows, readerVersions, decode, window };
}
