/**
 * Authorization (API.md "Access", `access`): each rule gives roles some actions on the topics whose names match
 * its glob patterns; a caller may do what any of its roles grants. `admin` on a topic includes every other action
 * there (and other principals' cursors on it). A topic on which a caller holds no action is invisible to it.
 *
 * Without an `auth` block there is one caller, the anonymous one, and it may do everything. With `auth` but no
 * `access` block, every authenticated caller may do everything but `admin`; an empty `access: []` grants nothing.
 */
import type { AccessRule, Action } from '../config/access-schema.js';
import type { Principal } from './principal.js';

/** `orders*` -> /^orders.*$/: `*` is any run of characters, `?` one; everything else is itself. */
export function globRegExp(pattern: string): RegExp {
  const body = [...pattern]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

interface CompiledRule {
  roles: ReadonlySet<string>;
  topics: readonly RegExp[];
  actions: ReadonlySet<Action>;
}

export class Grants {
  private readonly rules: readonly CompiledRule[] | 'all' | 'all-but-admin';

  /** `rules` undefined: see the module comment; `authEnabled` false: everyone may do everything. */
  constructor(rules: readonly AccessRule[] | undefined, authEnabled: boolean) {
    if (!authEnabled) this.rules = 'all';
    else if (rules === undefined) this.rules = 'all-but-admin';
    else {
      this.rules = rules.map((r) => ({
        roles: new Set(r.roles),
        topics: r.topics.map(globRegExp),
        actions: new Set(r.actions),
      }));
    }
  }

  /** May `principal` do `action` on `topic`? */
  can(principal: Principal, topic: string, action: Action): boolean {
    if (this.rules === 'all') return true;
    if (this.rules === 'all-but-admin') return principal.via !== 'anonymous' && action !== 'admin';
    for (const r of this.rules) {
      if (!r.topics.some((t) => t.test(topic))) continue;
      if (!principal.roles.some((role) => r.roles.has(role))) continue;
      if (r.actions.has(action) || r.actions.has('admin')) return true;
    }
    return false;
  }

  /** Does the caller hold any action on the topic (may it know the topic exists)? */
  sees(principal: Principal, topic: string): boolean {
    if (this.rules === 'all') return true;
    if (this.rules === 'all-but-admin') return principal.via !== 'anonymous';
    return this.rules.some(
      (r) => r.topics.some((t) => t.test(topic)) && principal.roles.some((role) => r.roles.has(role)),
    );
  }

  /** The topics of `topics` the caller sees, in their order. */
  visibleTopics<T extends string | { id: string }>(principal: Principal, topics: readonly T[]): T[] {
    return topics.filter((t) => this.sees(principal, typeof t === 'string' ? t : t.id));
  }
}
