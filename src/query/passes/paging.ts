/**
 * Exact paging, planned: a read's page position (tree/page-position.ts) is bound to the query's meaning by a hash,
 * and the first page pins the window's relative times and its upper bound, so every page reads the same fixed set.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../../core/errors.js';
import { TIME_COLUMN, type ColumnNode, type PredicateNode } from '../tree/nodes.js';
import type { ReadRequest } from '../tree/read-request.js';
import type { TopicModel } from '../tree/topic-model.js';
import type { PagePosition } from '../tree/page-position.js';
import { parseInstant } from '../request/time.js';

export function queryHash(meaning: unknown): string {
  return createHash('sha256').update(JSON.stringify(meaning)).digest('base64url').slice(0, 16);
}

/**
 * The filters as plain data for the page-token hash: the node tree with each column reduced to its name (its type
 * and source follow from the topic). Hashing the tree, not its SQL, keeps tokens valid across changes in how SQL
 * is rendered.
 */
export function canonicalWhere(where: PredicateNode | null): string {
  return JSON.stringify(where, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'column' ? (v as ColumnNode).name : v,
  );
}

export function firstPosition(
  h: string,
  anchored: boolean,
  topic: TopicModel,
  req: ReadRequest,
  now: number,
): PagePosition {
  const p: PagePosition = { h, m: anchored ? 'anchor' : 'offset', s: 0 };
  if ((req.since !== undefined || req.until !== undefined) && !topic.time) {
    throw new ApiError('TG_BAD_REQUEST', `since/until: ${topic.id} has no ${TIME_COLUMN}`);
  }
  if (!topic.time) return p;
  if (req.since !== undefined) p.lo = ceilMs(parseInstant(req.since, 'since', now));
  // The first page pins the upper bound, so later pages read the same set even while the topic grows.
  p.hi = req.until !== undefined ? ceilMs(parseInstant(req.until, 'until', now)) : now;
  if (p.lo !== undefined && p.hi <= p.lo)
    throw new ApiError('TG_BAD_TIME', 'until must be after since', { parameter: 'until' });
  return p;
}

/** An instant as a whole millisecond, rounded up: a window pinned in whole milliseconds covers it. */
export function ceilMs(i: { epochMs: number; subMs: string }): number {
  return i.subMs.replace(/0+$/, '') ? i.epochMs + 1 : i.epochMs;
}
