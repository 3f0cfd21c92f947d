/**
 * A follow's body: the poll loop's items written in the follow's framing, with a keep-alive whenever nothing was
 * written for `keepAliveMs` (API.md: a comment line every 15 s keeps idle connections open), so proxies and the
 * gateway's own connection timeout never take a quiet follower for a dead one. Pulled like an encoder's output
 * (encode/encoder.ts): the loop runs only as far as the client takes the bytes.
 *
 * A position reached without rows is written at once the first time (the start of the window, pinned however
 * `since` was written), then with the next keep-alive: only positions the client has been sent everything before
 * are ever written, so a reconnection from the last one misses nothing.
 *
 * A guard (http/follow-access.ts) is asked before each write of rows whether the follow may still deliver, and
 * ends it when its credential expires even while nothing comes: its refusal is the body's cut mark.
 */
import type { StreamError } from '../../encode/encoder.js';
import type { FollowPoint } from '../../query/follow/follow-ids.js';
import type { FollowFraming } from './follow-frames.js';
import type { FollowItem } from './follow-loop.js';

/** Whether a follow may still deliver (its caller's credential, grant and row scope). */
export interface FollowGuard {
  /** Rejects with why the follow may no longer deliver rows; resolves when it still may. */
  check(): Promise<void>;
  /** Rejects when the follow must end even with nothing to write (its credential expired). */
  readonly ended: Promise<never>;
}

export interface FollowBodyOptions {
  keepAliveMs: number;
  guard?: FollowGuard;
  /** Maps a failure to what the body says of it (the error catalog: no internals). */
  onError(err: unknown): StreamError & { queryId?: string };
}

const TICK = Symbol('keep-alive');
const NEVER = new Promise<never>(() => undefined);

/** The body's chunks: the framing's start, the items as they come, keep-alives between, and its end or cut mark. */
export async function* followBody(
  items: AsyncGenerator<FollowItem, void, undefined>,
  framing: FollowFraming,
  o: FollowBodyOptions,
): AsyncGenerator<string | Uint8Array, void, undefined> {
  yield framing.start();
  let marked = false;
  let unmarked: FollowPoint | undefined;
  let pending: Promise<IteratorResult<FollowItem, void>> | undefined;
  try {
    for (;;) {
      pending = items.next();
      let r: IteratorResult<FollowItem, void> | typeof TICK;
      for (;;) {
        const tick = ticking(o.keepAliveMs);
        r = await Promise.race([pending, tick.promise, o.guard?.ended ?? NEVER]);
        tick.cancel();
        if (r !== TICK) break;
        yield framing.keepAlive();
        const mark = unmarked && framing.mark(unmarked);
        unmarked = undefined;
        if (mark) yield mark;
      }
      if (r.done) break;
      const item = r.value;
      if (item.kind === 'rows') {
        await o.guard?.check();
        unmarked = undefined;
        yield framing.rows(item);
      } else if (!marked) {
        marked = true;
        const mark = framing.mark(item.point);
        if (mark) yield mark;
      } else unmarked = item.point;
    }
  } catch (err) {
    yield framing.cut(o.onError(err));
    throw err;
  } finally {
    // Closed while an item was on its way (the client left during a keep-alive): the loop ends with the request's
    // signal, and what it ends with is no one's to hear.
    pending?.catch(() => undefined);
    await items.return();
  }
  yield framing.end();
}

/** A timer as a promise of TICK, and its cancellation (a pending item must not keep timers alive). */
function ticking(ms: number): { promise: Promise<typeof TICK>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<typeof TICK>((resolve) => (timer = setTimeout(() => resolve(TICK), ms)));
  return { promise, cancel: () => clearTimeout(timer) };
}
