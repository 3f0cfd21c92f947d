/** CancelFlightInfo's bookkeeping (src/flight/running-reads.ts): whose reads it cancels, and for how long. */
import { describe, expect, it } from 'vitest';
import { RunningReads } from '../../src/flight/running-reads.js';

const t = (s: string) => Buffer.from(s);

describe('RunningReads', () => {
  it("cancels the running reads of the FlightInfo's tickets, of the principal that asks only", () => {
    const reads = new RunningReads(60_000);
    const cancelled: string[] = [];
    reads.track(t('a'), 'alice', () => cancelled.push('alice-a'));
    reads.track(t('a'), 'mallory', () => cancelled.push('mallory-a'));
    reads.track(t('b'), 'alice', () => cancelled.push('alice-b'));
    const done = reads.track(t('c'), 'alice', () => cancelled.push('alice-c'));
    done();
    expect(reads.cancel([t('a'), t('c')], 'alice')).toBe(1);
    expect(cancelled).toEqual(['alice-a']);
    expect(reads.cancel([t('b')], 'mallory')).toBe(0);
    expect(cancelled).toEqual(['alice-a']);
  });

  it('refuses a later read of a cancelled ticket by its principal until the tickets expire', () => {
    const reads = new RunningReads(1000);
    reads.cancel([t('a')], 'alice', 5000);
    expect(reads.isCancelled(t('a'), 'alice', 5999)).toBe(true);
    expect(reads.isCancelled(t('a'), 'bob', 5999)).toBe(false);
    expect(reads.isCancelled(t('b'), 'alice', 5999)).toBe(false);
    expect(reads.isCancelled(t('a'), 'alice', 6000)).toBe(false);
  });

  it('remembers at most 10,000 cancelled tickets, forgetting the oldest first', () => {
    const reads = new RunningReads(60_000);
    for (let i = 0; i <= 10_000; i++) reads.cancel([t(`x${i}`)], 'alice', 0);
    expect(reads.isCancelled(t('x0'), 'alice', 1)).toBe(false);
    expect(reads.isCancelled(t('x1'), 'alice', 1)).toBe(true);
    expect(reads.isCancelled(t('x10000'), 'alice', 1)).toBe(true);
  });
});
