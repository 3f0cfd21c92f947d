/**
 * The `Vary` header (RFC 9110 12.5.5) as one list: each part of the read path that makes the bytes depend on a
 * request header (the content coding, the media type, the credentials) adds its names, and the response carries
 * each name once, in one header, whatever order the parts ran in.
 */
import type { FastifyReply } from 'fastify';

/** Adds `names` to the response's Vary header, keeping what is there (CORS varies on Origin) and naming each once. */
export function addVary(reply: FastifyReply, names: readonly string[]): void {
  const have = String(reply.getHeader('vary') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  // `*` already says the response varies on everything.
  if (have.includes('*')) return;
  const lower = new Set(have.map((h) => h.toLowerCase()));
  for (const name of names) {
    if (lower.has(name.toLowerCase())) continue;
    lower.add(name.toLowerCase());
    have.push(name);
  }
  if (have.length > 0) reply.header('Vary', have.join(', '));
}
