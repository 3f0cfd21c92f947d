/**
 * What a caller may read on one topic, and as whom it reads: the caps and scope every planning pass reads. The
 * values are built from the settings by query/policy-from-settings.ts; passes and exec see only these shapes.
 */
import type { RequestCaps } from '../../config/access-schema.js';
import type { PredicateNode } from './nodes.js';

/**
 * What a caller may see of a topic (API.md "Access", row policies): the filter its policies give (null: every
 * row), and who it is (its principal's id: `key:...`, `jwt:<issuer>:...` or `anonymous`). Every read ANDs the
 * filter to the request's own, so nothing a request says widens it; page tokens hash both, so a token cannot be
 * replayed by another caller.
 */
export interface RowScope {
  readonly filter: PredicateNode | null;
  readonly principal: string;
}

/** Rows per response, and what else shapes the request's tree. */
export interface LimitPolicy {
  defaultLimit: number;
  maxLimit: number;
  /** The caller's row scope: planReadTree ANDs its filter to the request's and binds page tokens to it. */
  rows?: RowScope;
  /** Caps on what a request may name (passes/request-caps.ts); absent: a read the gateway itself shapes. */
  caps?: RequestCaps;
}

/** The residual-scan guardrail (passes/residual-scan.ts checkResidualScan). */
export interface GuardrailPolicy {
  /** Widest window a query filtering only after the scan may read; 0 or allowFullScan disables the check. */
  maxWindowMs: number;
  allowFullScan: boolean;
  complexPredicates: boolean;
}

/**
 * Bulk reads: slices read at once when the request names none, and the most it may name: the topic's
 * `maxParallel`, or fewer when the query limits (`limits.concurrentQueries` per caller,
 * `limits.maxConcurrentQueries`) could never let that many slice queries run at once. `maxFrom` names the cap.
 */
export interface ParallelPolicy {
  default: number;
  max: number;
  maxFrom?: string;
}

/** What a caller may read on one topic: every cap a request can hit, in one value built from the settings. */
export interface ReadPolicy extends LimitPolicy {
  /** Caps on what one request may name (the config file's `limits`). */
  caps: RequestCaps;
  /**
   * How the topic's queries are sent to Trino (API.md "Trino connection"). `reservedUsers`: Trino users a bearer
   * token's principal may not be impersonated as (API keys' principals, `anonymous`, the gateway's own user).
   */
  trino: {
    impersonate: boolean;
    reservedUsers: ReadonlySet<string>;
    session: Readonly<Record<string, string>>;
    clientTags: readonly string[];
  };
  /** The caller's row policies: required, so no read path can plan without them. */
  rows: RowScope;
  /** Events in a cursor batch when the loader names no limit. */
  batchDefaultLimit: number;
  /** Rows (or groups) the post-decode stage may hold to sort or aggregate decoded fields. */
  postDecodeMaxRows: number;
  guardrail: GuardrailPolicy;
  parallel: ParallelPolicy;
  infer: { defaultSample: number; maxSample: number; defaultWindowMs: number; maxWindowMs: number };
}

/**
 * Who asked: the principal authentication set on the request, or none on an open gateway, where queries run as
 * the gateway's own user. `id` names it (held queries, page tokens); `name` and `via` give its Trino user when
 * impersonating (planner.ts trinoUser).
 */
export interface Caller {
  readonly id: string;
  readonly name: string;
  readonly via: 'anonymous' | 'api-key' | 'jwt';
}

/** The action a read serves, as Trino sees it in the client tags (the access rules' action names). */
export type ReadAction = 'read' | 'explain' | 'infer' | 'cursors' | 'loads';

/** How one planned read is sent to Trino: as whom, with which client tags and session properties. */
export interface TrinoRun {
  /** The Trino user (`X-Trino-User`) when impersonating the caller; absent: the gateway's own user. */
  user?: string;
  clientTags: readonly string[];
  session: Readonly<Record<string, string>>;
}
