/**
 * Loads run by Trino (API.md "Loads run by Trino: topic into table"): the lifecycle of a load (define, show with
 * its lag and last runs, run, list runs, delete). A run holds the load's lock (one run at a time, across instances
 * with a PostgreSQL store), ends what earlier runs left going on in Trino, then runs its window (load-run.ts). No
 * event passes through the gateway: Trino reads the topic and writes the target.
 */
import { ApiError } from '../core/errors.js';
import { DEFAULT_SETTLE } from '../config/config.js';
import { plan, type PlannedRead } from '../query/planner.js';
import { readPolicy } from '../query/policy-from-settings.js';
import { whereFromJson } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import { epochOfTrinoTimestamp, trinoTimestampText } from '../core/trino-timestamp.js';
import { parseDuration, parseInstant } from '../query/request/time.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { topicModel } from '../read/topic-catalog.js';
import { endEarlierStatements } from './earlier-statements.js';
import type { StatefulCaller } from '../access/stateful-caller.js';
import type { LoadDefinition, LoadServiceParts } from './load-parts.js';
import { createClaimed } from './load-claims.js';
import { administeredLoad, loadKey, loadMarker, ownerOf, ownLoad } from './load-keys.js';
import { runWindow } from './load-run.js';
import type { LoadRecord, LoadRun, LoadStore } from './load-store.js';
import { checkTargetCatalog, parseTarget } from './load-target.js';
import { isTrinoFailure } from '../trino/trino-errors.js';

/** How long a run waits for the statements of an earlier run to end in Trino once killed. */
const EARLIER_WAIT_MS = 60_000;

export interface RunOutcome {
  /** `empty`: the window had no settled millisecond after the position; nothing ran. */
  outcome: 'committed' | 'empty';
  run: LoadRun | null;
  from: string | null;
  until: string;
  /** Absent when Trino could not count it after the run committed: the answer still says the run committed. */
  lag?: { events: number; ms: number | null };
}

export class LoadService {
  constructor(
    private readonly parts: LoadServiceParts,
    private readonly store: LoadStore,
  ) {}

  /** The topic's model; a topic whose payloads only the gateway decodes (Avro) cannot be loaded by Trino. */
  private async topic(id: string): Promise<TopicModel> {
    const model = topicModel(await this.parts.catalog.get(id), this.parts.config);
    if (!model.time)
      throw new ApiError('TG_BAD_REQUEST', `topic ${id} has no timestamp_broker: loads need topic tables`);
    const t = this.parts.config.topics[id];
    const avro = (['key', 'value'] as const).filter((c) => t?.[c]?.format === 'avro');
    if (avro.length > 0) {
      throw new ApiError(
        'TG_NOT_LOADABLE',
        `topic ${id} has Avro ${avro.join(' and ')} payloads: the gateway decodes them through the Schema Registry, ` +
          'and a load is run by Trino alone, which cannot',
        { topic: id, decoded: avro },
      );
    }
    return model;
  }

  /**
   * The caller's own load of this name, else one it reaches as an admin of its topic (load-keys.ts); another's
   * load is the same 404 as a missing one.
   */
  async get(name: string, caller: StatefulCaller): Promise<LoadRecord> {
    const l = (await ownLoad(this.store, name, caller)) ?? (await administeredLoad(this.store, name, caller));
    if (!l) throw notFound(name);
    caller.authorize(l.topic);
    return l;
  }

  definition(l: LoadRecord): LoadDefinition {
    return JSON.parse(l.definition) as LoadDefinition;
  }

  /**
   * Defines the caller's load of this name, claiming its target (load-claims.ts); the same definition again is a
   * no-op, another one a 409. Another principal's load of the same name is another load.
   */
  async create(
    name: string,
    input: Omit<LoadDefinition, 'start' | 'settle'> & Partial<LoadDefinition>,
    caller: StatefulCaller,
  ) {
    caller.authorize(input.topic);
    const def: LoadDefinition = {
      topic: input.topic,
      target: input.target,
      start: input.start ?? 'earliest',
      settle: input.settle ?? DEFAULT_SETTLE,
    };
    if (input.select !== undefined) def.select = input.select;
    if (input.where !== undefined) def.where = input.where;
    const target = parseTarget(def.target, this.parts.config);
    const model = await this.topic(def.topic);
    parseDuration(def.settle, 'settle');
    const position = def.start === 'earliest' ? null : trinoTimestampText(parseInstant(def.start, 'start').epochMs);
    // Validates select, where and the guardrail.
    this.plan(model, def, position, Date.now(), caller);
    await checkTargetCatalog(target, caller.trino);
    const canonical = JSON.stringify(def);
    const existing = await ownLoad(this.store, name, caller);
    if (existing) return this.same(name, existing, canonical);
    const record = { name: loadKey(name, caller.id), topic: def.topic, definition: canonical, position };
    const r = await createClaimed(this.store, { ...record, owner: caller.id }, target, caller.trino);
    return r.created ? r : this.same(name, r.record, canonical);
  }

  private same(name: string, existing: LoadRecord, canonical: string) {
    if (existing.definition !== canonical) {
      throw new ApiError('TG_LOAD_CONFLICT', `load ${JSON.stringify(name)} exists with another definition`, {
        existing: JSON.parse(existing.definition),
      });
    }
    return { created: false, record: existing };
  }

  /** The read of [position, untilMs) with the caller's row scope (the planner may end it earlier). */
  private plan(
    model: TopicModel,
    def: LoadDefinition,
    position: string | null,
    untilMs: number,
    caller: StatefulCaller,
  ) {
    const read = { select: def.select, where: def.where ? whereFromJson(def.where, resolver(model)) : null };
    const fromMs = position === null ? null : epochOfTrinoTimestamp(position);
    const rows = caller.rows(model);
    return plan(
      {
        kind: 'load',
        topic: model,
        read,
        fromMs,
        untilMs,
        caller: { id: caller.id, name: caller.name, via: caller.via },
      },
      readPolicy(this.parts.config, model.id, rows),
    );
  }

  /** Runs the next window, `until` (ISO) at the latest; one run of a load at a time (else 409). */
  async run(name: string, until: string | undefined, caller: StatefulCaller): Promise<RunOutcome> {
    const untilAsked = until === undefined ? undefined : parseInstant(until, 'until').epochMs;
    const seen = await this.get(name, caller);
    if (ownerOf(seen) !== caller.id) {
      throw new ApiError(
        'TG_FORBIDDEN',
        `load ${JSON.stringify(name)} runs as its owner, with the owner's row policies`,
      );
    }
    const def = this.definition(seen);
    const model = await this.topic(def.topic);
    const target = parseTarget(def.target, this.parts.config);
    const key = seen.name;
    const lock = await this.store.lock(key);
    if (!lock)
      throw new ApiError('TG_LOAD_RUNNING', `a run of load ${JSON.stringify(name)} is going on; try again later`);
    try {
      const load = await this.store.get(key);
      if (!load) throw notFound(name);
      await this.abandoned(key);
      const marker = loadMarker(key);
      await endEarlierStatements(caller.trino, marker, { clientTags: ['loads'], waitMs: EARLIER_WAIT_MS });
      const settled = Date.now() - parseDuration(def.settle, 'settle');
      const untilMs = Math.floor(untilAsked === undefined ? settled : Math.min(untilAsked, settled));
      const fromMs = load.position === null ? null : epochOfTrinoTimestamp(load.position);
      if (fromMs !== null && untilMs <= fromMs) {
        return {
          outcome: 'empty',
          run: null,
          from: load.position,
          until: load.position!,
          lag: await this.lagOf(model, def, load.position, caller),
        };
      }
      const planned = this.plan(model, def, load.position, untilMs, caller);
      const run = await runWindow({
        store: this.store,
        load,
        target,
        plan: planned,
        marker,
        trino: caller.trino,
        timeoutMs: this.parts.config.loadTimeoutMs,
        observe: this.parts.observe,
      });
      // The run is committed and its record says so: a lag that Trino fails to count now (a worker lost, say) is
      // left out, never turned into an error answer for a run that landed. Any other failure is a fault and stays one.
      const lag = await this.lagOf(model, def, run.until, caller).catch((err: unknown) => {
        if (isTrinoFailure(err)) return undefined;
        throw err;
      });
      return { outcome: 'committed', run, from: run.from, until: run.until, ...(lag && { lag }) };
    } finally {
      await lock.release();
    }
  }

  /** Runs left `running` by a gateway that stopped: the lock is ours, so none of them is going on. */
  private async abandoned(name: string): Promise<void> {
    for (const r of await this.store.runs(name, 20)) {
      if (r.outcome !== 'running') continue;
      const error = 'interrupted: the gateway running it stopped before it ended';
      await this.store.saveRun({ ...r, outcome: 'failed', error, finishedAt: new Date().toISOString() });
    }
  }

  /** Events after `position` that have settled (with the load's filters and the caller's row scope), and its age. */
  private async lagOf(model: TopicModel, def: LoadDefinition, position: string | null, caller: StatefulCaller) {
    const settled = Date.now() - parseDuration(def.settle, 'settle');
    const fromMs = position === null ? null : epochOfTrinoTimestamp(position);
    const ms = fromMs === null ? null : Math.max(0, Date.now() - fromMs);
    if (fromMs !== null && settled <= fromMs) return { events: 0, ms };
    const planned: PlannedRead = this.plan(model, def, position, settled, caller);
    const { rows } = await caller.trino.all(planned.countSql(), {
      ...planned.run,
      timeoutMs: this.parts.config.queryTimeoutMs,
    });
    return { events: Number(rows[0]?.[0] ?? 0), ms };
  }

  async lag(l: LoadRecord, caller: StatefulCaller) {
    const def = this.definition(l);
    return this.lagOf(await this.topic(def.topic), def, l.position, caller);
  }

  async runs(name: string, limit: number, caller: StatefulCaller): Promise<LoadRun[]> {
    return this.history(await this.get(name, caller), limit);
  }

  /** The runs of a load the caller was given by `get`. */
  history(l: LoadRecord, limit: number): Promise<LoadRun[]> {
    return this.store.runs(l.name, limit);
  }

  /** Deletes the load and its runs; the table stays, and only a later load of the same owner may take it back. */
  async delete(name: string, caller: StatefulCaller): Promise<void> {
    const l = await this.get(name, caller);
    if (!(await this.store.delete(l.name))) throw notFound(name);
  }
}

function notFound(name: string): ApiError {
  return new ApiError('TG_LOAD_NOT_FOUND', `no load ${JSON.stringify(name)}`);
}
