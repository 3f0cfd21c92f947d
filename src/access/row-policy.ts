/**
 * Row policies (API.md "Access", `rowPolicies`): per topic, filters tied to roles. A role with a policy on a
 * topic restricts whoever holds it; a caller holding several such roles sees the union of their rows (OR). The
 * planner ANDs the result onto the request's own filters, so nothing a request says can widen it. A caller
 * holding none of a topic's policy roles is not restricted by them.
 */
import { ApiError } from '../core/errors.js';
import { resolver } from '../query/request/resolver.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { PredicateNode } from '../query/tree/nodes.js';
import type { RowPolicyRule } from '../config/access-schema.js';
import type { Principal } from './principal.js';
import {
  bindRowFilter,
  claimNames,
  claimValue,
  parseRowFilter,
  templateProblems,
  type FilterTemplate,
} from './row-filter.js';

interface CompiledPolicy {
  roles: ReadonlySet<string>;
  template: FilterTemplate;
}

/** A predicate no row satisfies (a column that is both null and not null), for a caller every policy denies. */
export function matchNothing(topic: TopicModel): PredicateNode {
  const column = topic.time ?? topic.source.columns[0];
  if (!column) throw new Error(`topic ${topic.id} has no columns`);
  const isNull: PredicateNode = { kind: 'is', column, what: 'null' };
  return { kind: 'and', items: [isNull, { kind: 'not', inner: isNull }] };
}

export class RowPolicies {
  private readonly byTopic: ReadonlyMap<string, readonly CompiledPolicy[]>;

  /** Parses every filter; a defect throws (the settings loader reports them at start-up first). */
  constructor(policies: Readonly<Record<string, readonly RowPolicyRule[]>> = {}) {
    this.byTopic = new Map(
      Object.entries(policies).map(([topic, rules]) => [
        topic,
        rules.map((r) => ({ roles: new Set(r.roles), template: parseRowFilter(r.filter) })),
      ]),
    );
  }

  /**
   * The caller's row filter on a topic: null when no policy restricts it, else the OR of its roles' policies
   * (a policy whose claims the caller lacks contributes nothing; when none contributes, a filter matching nothing).
   */
  filterFor(topic: TopicModel, principal: Principal): PredicateNode | null {
    const mine = (this.byTopic.get(topic.id) ?? []).filter((p) => principal.roles.some((r) => p.roles.has(r)));
    if (mine.length === 0) return null;
    const resolve = resolver(topic);
    const items: PredicateNode[] = [];
    for (const p of mine) {
      let bound: PredicateNode | null;
      try {
        bound = bindRowFilter(p.template, principal.claims, resolve);
      } catch (err) {
        // The policy names a column the topic no longer has: fail closed, without showing the policy.
        if (err instanceof ApiError) {
          throw new ApiError('TG_FORBIDDEN', `a row policy of ${topic.id} does not fit its columns; ask the operator`);
        }
        throw err;
      }
      if (bound) items.push(bound);
    }
    if (items.length === 0) return matchNothing(topic);
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  /**
   * Only the claims of `principal` that its policies on the topic read, as nested as the principal has them: what
   * a presigned read session carries to recompute the same filter without the caller's token.
   */
  claimsRead(topicId: string, principal: Principal): Record<string, unknown> {
    const mine = (this.byTopic.get(topicId) ?? []).filter((p) => principal.roles.some((r) => p.roles.has(r)));
    // Null prototypes: a claim step is any name (`__proto__` too), and must land as an own member.
    const out: Record<string, unknown> = Object.create(null);
    for (const name of new Set(mine.flatMap((p) => claimNames(p.template)))) {
      const value = claimValue(principal.claims, name);
      if (value === undefined) continue;
      const steps = name.split('.');
      let at = out;
      for (const step of steps.slice(0, -1)) {
        const next = Object.hasOwn(at, step) ? at[step] : undefined;
        at = (at[step] = next !== null && typeof next === 'object' ? next : Object.create(null)) as Record<
          string,
          unknown
        >;
      }
      at[steps.at(-1)!] = value;
    }
    return out;
  }

  /** Problems of the policies of a served topic (unknown columns, values of the wrong type), for the start-up check. */
  check(topic: TopicModel): string[] {
    const resolve = resolver(topic);
    return (this.byTopic.get(topic.id) ?? []).flatMap((p, i) =>
      templateProblems(p.template, resolve).map((why) => `rowPolicies.${topic.id}[${i}].filter: ${why}`),
    );
  }

  /** Topics named by policies, to check against the served ones. */
  topics(): string[] {
    return [...this.byTopic.keys()];
  }
}
