/**
 * CancelFlightInfo (Flight.proto's action, a FlightInfo in a CancelFlightInfoRequest): the DoGets running on this
 * instance for the tickets of that FlightInfo are cancelled (their calls end CANCELLED, their Trino queries are
 * cancelled with their query leases), and a DoGet of one of those tickets made afterwards on this instance is
 * refused, until the tickets would have expired anyway. Only the principal a read runs for cancels it: a FlightInfo
 * seen by someone else cancels nothing of its owner's. Tickets are known by a hash, never kept as they are.
 *
 * A ticket is self-contained, so another instance may be serving one of the same FlightInfo: cancellation reaches
 * the reads of the instance the action lands on (with a balancer, cancel on each instance, or cancel the DoGet).
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import type { FlightCall } from './flight-call.js';
import { decodeMessage, encodeMessage, type Action, type FlightInfo } from './flight-messages.js';
import { CallCancelled } from './flight-status.js';

/** The most cancelled tickets remembered; past it the oldest are forgotten first. */
const MAX_REMEMBERED = 10_000;

interface Running {
  principal: string;
  cancel(): void;
}

const keyOf = (ticket: Uint8Array) => createHash('sha256').update(ticket).digest('base64url');

export class RunningReads {
  private readonly running = new Map<string, Set<Running>>();
  /** Cancelled tickets (by hash and principal) and until when they are refused, epoch ms. */
  private readonly cancelled = new Map<string, number>();

  constructor(private readonly rememberMs: number) {}

  /** Whether `principal` cancelled this ticket (a DoGet of it is then refused). */
  isCancelled(ticket: Uint8Array, principal: string, now = Date.now()): boolean {
    const key = `${principal}\0${keyOf(ticket)}`;
    const until = this.cancelled.get(key);
    if (until === undefined) return false;
    if (now < until) return true;
    this.cancelled.delete(key);
    return false;
  }

  /** Tracks a DoGet of `ticket` for `principal` until the returned function is called. */
  track(ticket: Uint8Array, principal: string, cancel: () => void): () => void {
    const key = keyOf(ticket);
    const entry = { principal, cancel };
    let set = this.running.get(key);
    if (!set) this.running.set(key, (set = new Set()));
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.running.get(key) === set) this.running.delete(key);
    };
  }

  /** Cancels `principal`'s running DoGets of these tickets and refuses later ones; the number cancelled. */
  cancel(tickets: readonly Uint8Array[], principal: string, now = Date.now()): number {
    let n = 0;
    for (const ticket of tickets) {
      const key = keyOf(ticket);
      this.remember(`${principal}\0${key}`, now + this.rememberMs);
      for (const r of [...(this.running.get(key) ?? [])]) {
        if (r.principal !== principal) continue;
        r.cancel();
        n++;
      }
    }
    return n;
  }

  /** `data` as the DoGet of `ticket` by the call: refused once its principal cancelled it, cancellable while it runs. */
  async *read(call: Pick<FlightCall, 'principal' | 'cancel'>, ticket: Uint8Array, data: AsyncIterable<Buffer>) {
    if (this.isCancelled(ticket, call.principal.id)) throw new CallCancelled();
    const done = this.track(ticket, call.principal.id, () => call.cancel());
    try {
      yield* data;
    } finally {
      done();
    }
  }

  private remember(key: string, until: number): void {
    this.cancelled.delete(key);
    this.cancelled.set(key, until);
    while (this.cancelled.size > MAX_REMEMBERED) {
      const oldest = this.cancelled.keys().next().value as string;
      this.cancelled.delete(oldest);
    }
  }
}

/** CancelStatus.CANCELLED of Flight.proto: the reads this instance runs for those tickets are cancelled. */
const CANCELLED = 1;

/** The DoAction `CancelFlightInfo`: its request's FlightInfo, whose endpoints' DoGets are cancelled here. */
export async function* cancelFlightInfo(call: Pick<FlightCall, 'principal'>, a: Action, reads: RunningReads) {
  let info: FlightInfo | null;
  try {
    info = decodeMessage<{ info: FlightInfo | null }>('CancelFlightInfoRequest', a.body).info;
  } catch {
    info = null;
  }
  if (!info)
    throw new ApiError('TG_BAD_REQUEST', 'CancelFlightInfo takes a CancelFlightInfoRequest with its FlightInfo');
  reads.cancel(
    info.endpoint.map((e) => e.ticket.ticket),
    call.principal.id,
  );
  yield { body: encodeMessage('CancelFlightInfoResult', { status: CANCELLED }) };
}
