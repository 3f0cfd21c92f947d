/**
 * Following a read for any entrance (API.md "Following a topic"): the follow planned (query/follow/follow-plan.ts:
 * every refusal before the response starts), resumed after an event id, and each poll's page opened. The framing,
 * keep-alives and the wire are the entrance's.
 */
import { settleMsOf } from '../config/config.js';
import { FollowIds, type IdSource } from '../query/follow/follow-ids.js';
import { FollowPlanner } from '../query/follow/follow-plan.js';
import { readPolicy } from '../query/policy-from-settings.js';
import type { PlannedRead } from '../query/planner.js';
import type { MemoryAccount } from '../read/gateway-memory.js';
import { openPage, type Page, type PageTrino } from '../read/open-page.js';
import { keyFramesOf, type PlanCall, type ReadOptions } from './plan-read.js';
import { pageContextOf } from './read-call.js';

/** A follow as an entrance asks for it. */
export interface FollowOptions extends Pick<ReadOptions, 'topic' | 'req' | 'rows' | 'cursor' | 'explain' | 'format'> {
  /** `after=`: the event id to resume after (wins over the transport's own, `Last-Event-ID`). */
  after?: string;
  decode: boolean;
  readerVersions?: ReadOptions['readerVersions'];
}

/** The event id a transport resumes after on its own (HTTP: `Last-Event-ID`), with the name a refusal gives it. */
export interface ResumedFrom {
  id: string;
  name: IdSource;
}

/**
 * The follow's planner (every refusal of the request comes from it, before the response starts) and its ids:
 * resumed after `after=` first, else after the transport's id.
 */
export async function planFollow(call: PlanCall, o: FollowOptions, from: ResumedFrom | undefined) {
  const { config, keyring } = call.services;
  const ids = new FollowIds(keyring);
  const resumed = o.after !== undefined ? ids.open(o.after, 'after') : from ? ids.open(from.id, from.name) : null;
  const planner = new FollowPlanner(
    {
      topic: o.topic,
      read: o.req,
      cursor: o.cursor,
      explain: o.explain,
      policy: readPolicy(config, o.topic.id, o.rows),
      keyFrames: await keyFramesOf(call.services, o),
      caller: call.caller,
      settleMs: settleMsOf(config.topics[o.topic.id]),
    },
    resumed,
  );
  return { planner, ids };
}

/** Opens each poll's page through its lease, cancelled by `signal`, its held bytes counted in `memory`. */
export function followPages(call: PlanCall, o: FollowOptions, signal: AbortSignal, memory: MemoryAccount) {
  const pageOptions = {
    paged: false,
    caller: call.caller?.id ?? '',
    topic: o.topic.id,
    decode: o.decode,
    readerVersions: o.readerVersions,
    bytesAsHex: true,
    flattensDecoded: false,
  };
  return (plan: PlannedRead, lease: PageTrino): Promise<Page> =>
    openPage(pageContextOf(call.services, lease, signal, memory), plan, pageOptions);
}
