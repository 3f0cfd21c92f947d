/**
 * A follower's positions as event ids (API.md "Following a topic"): each Server-Sent Event carries the position
 * right after it, signed like page tokens (core/signed-token.ts, kind `f1`) and bound to the query by its hash, so
 * `Last-Event-ID` (or `after=`) resumes exactly there and a tampered id, or one of another query, is refused.
 */
import { Type, type Static } from 'typebox';
import { ApiError } from '../../core/errors.js';
import { Keyring, SignedTokens, type TokenFault } from '../../core/signed-token.js';
import { TrinoTimestampText } from '../tree/page-position.js';

/**
 * Where a follower is: every event before `ts` delivered, plus the first `skip` events at `ts` in the read's total
 * order (a cursor's position, cursors/cursor-store.ts); `ts` null: nothing delivered from the window's start.
 */
export interface FollowPoint {
  ts: string | null;
  skip: number;
}

const FollowIdSchema = Type.Object(
  {
    /** The query's hash (query/passes/paging.ts): an id resumes only the query that issued it. */
    h: Type.String({ maxLength: 64 }),
    /** Broker time of the position, Trino text; absent: the window's start. */
    a: Type.Optional(TrinoTimestampText),
    s: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  },
  { additionalProperties: false },
);
type FollowId = Static<typeof FollowIdSchema>;

const ID_FAULTS = {
  malformed: 'not an event id of this API',
  oversize: 'not an event id of this API',
  kind: 'not an event id of this API',
  signature: 'not an event id this service issued',
  shape: 'bad position',
} as const satisfies Record<TokenFault, string>;

/** Where a resumed follow's id came from: the `after` parameter or the `Last-Event-ID` header. */
export type IdSource = 'after' | 'Last-Event-ID';

/** A decoded id: the query it belongs to and its position. */
export interface OpenedId {
  h: string;
  point: FollowPoint;
  from: IdSource;
}

/** Signs follow positions into opaque event ids, and opens them. */
export class FollowIds {
  private readonly tokens: SignedTokens<typeof FollowIdSchema>;

  /** `keys`: the keyring, or a bare secret (TOPICGATE_CURSOR_SECRET). */
  constructor(keys: Keyring | string) {
    const keyring = typeof keys === 'string' ? Keyring.fromSecrets(keys) : keys;
    this.tokens = new SignedTokens({ kind: 'f1', schema: FollowIdSchema, maxLength: 512, keys: keyring });
  }

  /** The id of `point` in the query of hash `h`. */
  seal(h: string, point: FollowPoint): string {
    const body: FollowId = { h, s: point.skip };
    if (point.ts !== null) body.a = point.ts;
    return this.tokens.seal(body);
  }

  /** Opens an id; any defect is a 400 TG_BAD_CURSOR naming where it came from. */
  open(token: string, from: IdSource): OpenedId {
    const r = this.tokens.open(token);
    if (!r.ok) throw badId(from, ID_FAULTS[r.fault]);
    return { h: r.body.h, point: { ts: r.body.a ?? null, skip: r.body.s }, from };
  }
}

/** The 400 of an event id that cannot resume this follow. */
export function badId(from: IdSource, why: string): ApiError {
  const where = from === 'after' ? { parameter: 'after' } : { header: 'Last-Event-ID' };
  return new ApiError('TG_BAD_CURSOR', `${from}: ${why}`, where);
}
