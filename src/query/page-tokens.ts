/** Page tokens: a page position, signed (signed-token.ts), so a tampered token or one of another query is refused. */
import { ApiError } from '../core/errors.js';
import { Keyring, SignedTokens, type TokenFault } from '../core/signed-token.js';
import { PagePositionSchema, type PagePosition } from './tree/page-position.js';

const PAGE_FAULTS = {
  malformed: 'not a page cursor',
  oversize: 'not a page cursor',
  kind: 'not a page cursor',
  signature: 'not a cursor this service issued',
  shape: 'bad position',
} as const satisfies Record<TokenFault, string>;

/** Signs page positions into opaque tokens and opens them for the query that made them. */
export class PageTokens {
  private readonly tokens: SignedTokens<typeof PagePositionSchema>;

  /** `keys`: the keyring, or a bare secret (TOPICGATE_CURSOR_SECRET). */
  constructor(keys: Keyring | string) {
    const keyring = typeof keys === 'string' ? Keyring.fromSecrets(keys) : keys;
    this.tokens = new SignedTokens({ kind: 'p1', schema: PagePositionSchema, maxLength: 2048, keys: keyring });
  }

  encode(p: PagePosition): string {
    return this.tokens.seal(p);
  }

  /** Decodes a token for the query with hash `h`; any defect is a 400 TG_BAD_CURSOR. */
  decode(token: string, h: string): PagePosition {
    const bad = (why: string) => new ApiError('TG_BAD_CURSOR', `cursor: ${why}`, { parameter: 'cursor' });
    const r = this.tokens.open(token);
    if (!r.ok) throw bad(PAGE_FAULTS[r.fault]);
    if (r.body.h !== h) throw bad('belongs to another query (the filters, order or select changed)');
    return r.body;
  }
}
