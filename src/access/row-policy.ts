/**
 * Row policies (API.md "Access", `rowPolicies`): per topic, filters tied to roles. A role with a policy on a
 * topic restricts whoever holds it; a caller holding several such roles sees the union of their rows (OR). The
 * planner ANDs the result onto the request's own filters, so nothing a request says can widen it. A caller
 * holding none of a topic's policy roles sees none of its rows under `rowPolicies.default: deny` (the default) and
 * every row under `allow`.
 *
 * Policies follow the events: a topic and its native expansion table hold the same events (policy-tables.ts), so
 * the policies of either, bound to the other's own columns, restrict the other too, unless the config gives it
 * policies of its own. A policy that cannot be bound there is refused at start-up (policy-check.ts) and refuses the
 * read (403), never serves it unrestricted.
 */
import { ApiError } from '../core/errors.js';
import { resolver } from '../query/request/resolver.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { and, type PredicateNode } from '../query/tree/nodes.js';
import type { RowPolicyDefault, RowPolicyRule } from '../config/access-schema.js';
import type { TopicSettings } from '../config/config.js';
import type { Principal } from './principal.js';
import { sameEvents } from './policy-tables.js';
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

/** The policies of one topic that apply to a table: its own, or those of a topic whose events it serves. */
interface PolicySet {
  topic: string;
  rules: readonly CompiledPolicy[];
}

/** A problem of a policy on a served table, for the start-up check: which rule (`orders[0]`), and what. */
export interface PolicyProblem {
  rule: string;
  text: string;
}

export class RowPolicies {
  private readonly byTopic: ReadonlyMap<string, readonly CompiledPolicy[]>;
  private readonly deny: boolean;
  private readonly topicSettings: Readonly<Record<string, TopicSettings>>;

  /**
   * Parses every filter; a defect throws (the settings loader reports them at start-up first). `topics` says which
   * expansion tables the config names.
   */
  constructor(
    policies: Readonly<Record<string, readonly RowPolicyRule[]>> = {},
    opts: { default?: RowPolicyDefault; topics?: Readonly<Record<string, TopicSettings>> } = {},
  ) {
    this.byTopic = new Map(
      Object.entries(policies).map(([topic, rules]) => [
        topic,
        rules.map((r) => ({ roles: new Set(r.roles), template: parseRowFilter(r.filter) })),
      ]),
    );
    this.deny = opts.default !== 'allow';
    this.topicSettings = opts.topics ?? {};
  }

  /** The policy sets that apply to a table: its own, else one per table holding the same events. */
  private setsFor(tableId: string): PolicySet[] {
    const own = this.byTopic.get(tableId);
    if (own) return [{ topic: tableId, rules: own }];
    return sameEvents(tableId, this.byTopic.keys(), this.topicSettings).map((topic) => ({
      topic,
      rules: this.byTopic.get(topic)!,
    }));
  }

  /**
   * The caller's row filter on a table: null when no policy restricts it, else for each policy set the OR of its
   * roles' policies (a policy whose claims the caller lacks contributes nothing; when none contributes, a filter
   * matching nothing), ANDed across the sets. A set none of whose roles the caller holds allows every row, or
   * under `default: deny` none.
   */
  filterFor(topic: TopicModel, principal: Principal): PredicateNode | null {
    const parts: PredicateNode[] = [];
    for (const set of this.setsFor(topic.id)) {
      const mine = set.rules.filter((p) => principal.roles.some((r) => p.roles.has(r)));
      if (mine.length === 0) {
        if (this.deny) return matchNothing(topic);
        continue;
      }
      parts.push(bindSet(topic, mine, principal));
    }
    return and(...parts);
  }

  /**
   * Only the claims of `principal` that its policies on the table read, as nested as the principal has them: what
   * a presigned read session carries to recompute the same filter without the caller's token.
   */
  claimsRead(topicId: string, principal: Principal): Record<string, unknown> {
    const mine = this.setsFor(topicId)
      .flatMap((s) => s.rules)
      .filter((p) => principal.roles.some((r) => p.roles.has(r)));
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

  /**
   * Problems of the policies that apply to a served table (unknown columns, values of the wrong type), its own or
   * inherited from the topic whose events it serves, for the start-up check.
   */
  problems(topic: TopicModel): PolicyProblem[] {
    const resolve = resolver(topic);
    return this.setsFor(topic.id).flatMap((set) =>
      set.rules.flatMap((p, i) =>
        templateProblems(p.template, resolve).map((why): PolicyProblem => {
          const rule = `${set.topic}[${i}]`;
          if (set.topic === topic.id) return { rule, text: `rowPolicies.${rule}.filter: ${why}` };
          return {
            rule,
            text:
              `rowPolicies.${rule}.filter applies to ${topic.id} too (the same events): ${why}; ` +
              `give ${topic.id} row policies of its own (rowPolicies.${topic.id})`,
          };
        }),
      ),
    );
  }

  /** The problems of `problems`, as text. */
  check(topic: TopicModel): string[] {
    return this.problems(topic).map((p) => p.text);
  }

  /**
   * Under `default: allow`, a table with policies of its own that holds the same events as another with policies
   * of its own (a topic and its expansion table) must restrict every role the other restricts: a role it leaves out
   * would read there every row it cannot read on the other.
   */
  uncovered(tableId: string): string[] {
    const own = this.byTopic.get(tableId);
    if (!own || this.deny) return [];
    const covered = new Set(own.flatMap((p) => [...p.roles]));
    return sameEvents(tableId, this.byTopic.keys(), this.topicSettings).flatMap((topic) =>
      [...new Set(this.byTopic.get(topic)!.flatMap((p) => [...p.roles]))]
        .filter((role) => !covered.has(role))
        .map(
          (role) =>
            `rowPolicies.${tableId}: role ${role} is restricted on ${topic} (the same events) but has no policy here; ` +
            'give it one, or set rowPolicies.default: deny',
        ),
    );
  }

  /** Topics named by policies, to check against the served ones. */
  topics(): string[] {
    return [...this.byTopic.keys()];
  }
}

/** The OR of a caller's policies of one set, bound to the table's columns (a policy that does not fit: 403). */
function bindSet(topic: TopicModel, mine: readonly CompiledPolicy[], principal: Principal): PredicateNode {
  const resolve = resolver(topic);
  const items: PredicateNode[] = [];
  for (const p of mine) {
    let bound: PredicateNode | null;
    try {
      bound = bindRowFilter(p.template, principal.claims, resolve);
    } catch (err) {
      // The policy names a column the table does not have: fail closed, without showing the policy.
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
