/**
 * The JSON request body parser: fastify's own (the same errors for an empty or invalid body, the same guard against
 * prototype poisoning), after one scan of the raw text for how deep it nests. A body deeper than
 * `limits.maxDepth` is a 422 naming the cap before anything recursive sees it: the schema validator (which
 * recurses once per level and overflows the stack a few thousand levels down) and the request readers after it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DEFAULT_MAX_DEPTH } from '../../config/access-schema.js';
import { textStringEnd } from '../../core/json-scan.js';
import { capRefusal } from '../../query/passes/request-caps.js';

const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The deepest nesting of objects and arrays in JSON text (brackets inside strings do not count); 0 for a scalar. */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Brackets inside the string do not count.
      const end = textStringEnd(text, i);
      i = (end < 0 ? text.length : end) - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > deepest) deepest = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

async function jsonBody(app: FastifyInstance, opts: { maxDepth?: number }): Promise<void> {
  const max = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const found = jsonDepth(body as string);
    if (found > max) done(capRefusal('maxDepth', max, found, 'JSON body nesting depth', 'body'), undefined);
    // The default parser answers through `done`; the promise its type allows for carries nothing.
    else void parse(request, body as string, done);
  });
}

/** Registers the parser for application/json bodies with the nesting cap (`limits.maxDepth`). */
export default fp(jsonBody, { name: 'topicgate-json-body' });
