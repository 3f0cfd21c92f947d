/**
 * Batch tokens: what a loader gets with a batch and sends back to commit it. The body names the cursor, its
 * generation, where the batch starts and ends, its upper time bound and its row count; it is signed by the same
 * module as page cursors (kind `b1`, so neither can stand in for the other) and its shape is checked on commit.
 * A batch's id (its history key, stable for a batch) is a hash of its token.
 */
import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { ApiError } from '../core/errors.js';
import { TrinoTimestampText } from '../query/tree/page-position.js';
import { Keyring, SignedTokens } from '../core/signed-token.js';

const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** A cursor position as a batch carries it: the store's `Position`, its time as Trino text (or null: the start). */
const BatchPosition = Type.Object(
  { ts: Type.Union([TrinoTimestampText, Type.Null()]), skip: Count },
  { additionalProperties: false },
);

export const BatchBodySchema = Type.Object(
  {
    /** The cursor's name. */
    c: Type.String({ minLength: 1, maxLength: 128 }),
    /** The cursor's incarnation: a token of a deleted-and-recreated cursor is refused. */
    i: Type.String({ maxLength: 64 }),
    /** The cursor's generation when the batch was handed out (a seek bumps it). */
    g: Count,
    /** From (the position the batch starts at) and to (where it leaves the cursor). */
    f: BatchPosition,
    t: BatchPosition,
    /** Upper bound (exclusive) of the batch's broker times, Trino text. */
    u: TrinoTimestampText,
    /** Rows in the batch. */
    n: Count,
  },
  { additionalProperties: false },
);
export type BatchBody = Static<typeof BatchBodySchema>;

export class BatchTokens {
  private readonly tokens: SignedTokens<typeof BatchBodySchema>;

  /** `keys`: the keyring, or a bare secret (TOPICGATE_CURSOR_SECRET). */
  constructor(keys: Keyring | string) {
    const keyring = typeof keys === 'string' ? Keyring.fromSecrets(keys) : keys;
    // The longest token is under 700 characters (names are at most 128); the cap leaves room for the binding to the cursor's owner and incarnation.
    this.tokens = new SignedTokens({ kind: 'b1', schema: BatchBodySchema, maxLength: 1024, keys: keyring });
  }

  seal(body: BatchBody): { token: string; id: string } {
    const token = this.tokens.seal(body);
    return { token, id: batchId(token) };
  }

  /** The body of a token; any defect is a 400 TG_BAD_BATCH. */
  open(token: unknown): BatchBody {
    const r = this.tokens.open(token);
    // One message for every fault: a loader can only send back what it was given, so detail would not help it.
    if (!r.ok) throw new ApiError('TG_BAD_BATCH', 'batch: not a batch token this service issued');
    return r.body;
  }

  /** Whether a token we issued can still be committed (false after its key left the ring, or a layout change). */
  valid(token: string): boolean {
    return this.tokens.open(token).ok;
  }
}

export function batchId(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}
