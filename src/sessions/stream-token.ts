/**
 * The sealed description a read session's stream URL carries (API.md "Read sessions"): everything an instance needs
 * to serve the stream, so none keeps state of its own. Sealed (encrypted and authenticated) by the one token module
 * (core/signed-token.ts, kind `s1`, keys from TOPICGATE_CURSOR_SECRET and its rotation) and deflated, since it holds
 * a whole request: its holder cannot read the roles and claims it carries. It binds
 * the stream to its topic, its request, its time range, the principal that made it and that principal's row scope
 * (as a hash: the filter itself is recomputed from the current grants on every read, and must hash the same), its
 * expiry and whether it is presigned. A presigned stream also carries the roles its principal had and the claims
 * the topic's row policies name, so a read without credentials can be checked against the current grants.
 */
import { Type, type Static } from 'typebox';
import { ApiError } from '../core/errors.js';
import { SignedTokens, type Keyring, type TokenFault } from '../core/signed-token.js';
import { SessionRead } from '../query/request/session-schema.js';

const Ms = Type.Integer({ minimum: -62_135_596_800_000, maximum: 253_402_300_799_999 });
const Version = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

export const StreamBodySchema = Type.Object(
  {
    /** The session's id (random), and the stream's index in it. */
    i: Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$' }),
    n: Type.Integer({ minimum: 0, maximum: 100_000 }),
    /** The topic, and what every stream of the session reads. */
    t: Type.String({ minLength: 1, maxLength: 1024 }),
    q: SessionRead,
    /** The stream's time range [f, u), epoch ms. */
    f: Ms,
    u: Ms,
    /** The principal that made the session (its id: `key:...`, `jwt:<issuer>:...`), and how it proved who it is. */
    p: Type.String({ maxLength: 1024 }),
    v: Type.Union([Type.Literal('anonymous'), Type.Literal('api-key'), Type.Literal('jwt')]),
    /** Presigned only: its roles and the claims the topic's row policies name, when the session was made. */
    r: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 256 })),
    c: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** The principal's row scope on the topic when the session was made (rowScopeHash). */
    h: Type.String({ maxLength: 64 }),
    /** Expiry, epoch ms (never after `e`); presigned. */
    x: Ms,
    /** A JWT principal's: its token's `exp`, epoch ms. Past it the stream is refused (401), presigned or not. */
    e: Type.Optional(Ms),
    s: Type.Boolean(),
    /** Reader schema versions of decoded Avro payloads, pinned so every stream decodes with the same. */
    rv: Type.Object({ key: Type.Optional(Version), value: Type.Optional(Version) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type StreamBody = Static<typeof StreamBodySchema>;

/**
 * Longest token accepted: a stream URL must fit in the request line of any HTTP server on the way (Node's default
 * header limit is 16 KiB, line included).
 */
export const MAX_STREAM_TOKEN = 12_000;

const FAULTS = {
  malformed: 'not a stream token',
  oversize: 'not a stream token',
  kind: 'not a stream token',
  signature: 'not signed by this service (altered, or its key was retired)',
  shape: 'not a stream token of this version',
} as const satisfies Record<TokenFault, string>;

/** Signs stream descriptions into URL tokens and opens them again, on any instance sharing the keys. */
export class StreamTokens {
  private readonly tokens: SignedTokens<typeof StreamBodySchema>;

  constructor(keys: Keyring) {
    this.tokens = new SignedTokens({
      kind: 's1',
      schema: StreamBodySchema,
      maxLength: MAX_STREAM_TOKEN,
      keys,
      deflate: { maxBytes: 1 << 20 },
    });
  }

  /** The token of a stream; a request too large to carry in a URL is a 422 naming the cause. */
  seal(body: StreamBody): string {
    const token = this.tokens.seal(body);
    if (token.length > MAX_STREAM_TOKEN) {
      throw new ApiError(
        'TG_TOO_EXPENSIVE',
        `the request is too large to carry in stream URLs (${token.length} characters signed, at most ${MAX_STREAM_TOKEN}): shorten select or where`,
        { parameter: 'where', max: MAX_STREAM_TOKEN },
      );
    }
    return token;
  }

  /**
   * The stream a token describes: any defect (malformed, altered, sealed with a retired key) is a 400
   * TG_BAD_SESSION; a stream past its JWT's exp a 401 TG_UNAUTHENTICATED; past its expiry a 410
   * TG_SESSION_EXPIRED (both checked after the seal, so an altered expiry is a 400).
   */
  open(token: unknown, now = Date.now()): StreamBody {
    const r = this.tokens.open(token);
    if (!r.ok) throw new ApiError('TG_BAD_SESSION', `token: ${FAULTS[r.fault]}`, { parameter: 'token' });
    // A stream never outlives the credential its session was made with: the JWT's roles and claims end at its exp.
    if (r.body.e !== undefined && now >= r.body.e) {
      throw new ApiError(
        'TG_UNAUTHENTICATED',
        'the bearer token this session was made with has expired: create a new session with a fresh one',
        { parameter: 'token' },
      );
    }
    if (now >= r.body.x) {
      throw new ApiError(
        'TG_SESSION_EXPIRED',
        `the session expired at ${new Date(r.body.x).toISOString()}: create a new one`,
        { expiresAt: new Date(r.body.x).toISOString() },
      );
    }
    return r.body;
  }
}
