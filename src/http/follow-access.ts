/**
 * What a follow's caller must keep to keep receiving events (API.md "Following a topic"): the authentication,
 * grant and row scope it was let in with, checked against the access state in force (access/access-holder.ts)
 * before each write of rows and at each poll, and its credential's expiry (a JWT's `exp`), also by a timer so an
 * idle follow ends then too. When one is lost the follow ends with the error of a new request in the same case:
 * - the credential expired, or is no longer accepted (an API key removed by a reload): TG_UNAUTHENTICATED;
 * - the grant to read the topic is gone, or the caller's row scope on it changed: TG_FORBIDDEN.
 * Within one state every answer but the expiry stays the same: the credential is authenticated again, and the grant
 * and row scope checked, at the first check and then only when another state is in force (the request may have
 * been let in under the state before the one in force when the follow started).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Access } from '../access/create-access.js';
import { credentialExpiry, type Principal } from '../access/principal.js';
import { canonicalJson } from '../entry/canonical-json.js';
import { ApiError } from '../core/errors.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { FollowGuard } from '../read/follow/follow-body.js';

/** The longest delay a Node timer takes (about 24.8 days); a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const expired = () =>
  new ApiError(
    'TG_UNAUTHENTICATED',
    'the credential of this follow has expired: reconnect with a fresh one (Last-Event-ID resumes where it ended)',
  );

export class FollowAccess implements FollowGuard {
  readonly ended: Promise<never>;
  private principal: Principal;
  /** The state the credential, grant and row scope were last found good under (none yet). */
  private verified: Access | undefined;
  /** The row scope the follow started with. */
  private readonly scope: string;
  private readonly expiresAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly app: FastifyInstance,
    private readonly request: FastifyRequest,
    private readonly topic: TopicModel,
    rows: RowScope,
  ) {
    this.principal = request.principal;
    this.scope = canonicalJson(rows);
    this.expiresAt = credentialExpiry(this.principal);
    this.ended = new Promise<never>((_, reject) => this.arm(reject));
    // Rejected when no write is waiting on it (the follow busy, or already over): no one else need hear it.
    this.ended.catch(() => undefined);
  }

  /** Throws the 401 once the credential has expired. */
  checkExpiry(now = Date.now()): void {
    if (this.expiresAt !== undefined && now >= this.expiresAt) throw expired();
  }

  /** Throws (rejects with) why the follow may no longer deliver, or resolves when it still may. */
  async check(): Promise<void> {
    this.checkExpiry();
    const access = this.app.access;
    if (access === this.verified) return;
    // Under a new state the credential is authenticated again (a removed key is refused), then grant and scope.
    const p = await access.authenticator.authenticate(this.request.headers);
    if (p.id !== this.principal.id)
      throw new ApiError('TG_UNAUTHENTICATED', 'the credential of this follow now names another principal');
    this.principal = p;
    const id = this.topic.id;
    if (!access.grants.can(this.principal, id, 'read'))
      throw new ApiError('TG_FORBIDDEN', `this caller may no longer read topic ${JSON.stringify(id)}`, {
        action: 'read',
      });
    const scope = { filter: access.rowPolicies.filterFor(this.topic, this.principal), principal: this.principal.id };
    if (canonicalJson(scope) !== this.scope)
      throw new ApiError(
        'TG_FORBIDDEN',
        `the row policy of this caller on topic ${JSON.stringify(id)} changed: follow again under the one in force`,
      );
    this.verified = access;
  }

  /** Stops the expiry timer (the follow is over). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(reject: (err: ApiError) => void): void {
    if (this.expiresAt === undefined) return;
    const wait = () => {
      const left = this.expiresAt! - Date.now();
      if (left <= 0) return reject(expired());
      this.timer = setTimeout(wait, Math.min(left, MAX_TIMER_MS));
    };
    wait();
  }
}
