/**
 * The explorer script's first part (web/explore/ui/first-requests.ts) starts the page's first API requests from its
 * URL alone, before the pages' code has loaded: a topic page's rate aggregation (its window, bucket and filters as
 * the page would ask them) and nothing else; the overview's listing and, as soon as it answers, the first topic's
 * sparkline (a table without broker time is skipped), and nothing else. fetch is a stand-in that answers as the API
 * would and records what it was asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pageTopic, startFirstRequests } from '../../web/explore/ui/first-requests.js';

interface Asked {
  method: string;
  path: string;
  body: unknown;
}

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** A fetch that answers by path and records each request, in order. */
function fakeApi(answers: Record<string, unknown>): Asked[] {
  const asked: Asked[] = [];
  globalThis.fetch = (async (input: string, init: RequestInit = {}) => {
    const path = String(input);
    asked.push({
      method: init.method ?? 'GET',
      path,
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    const answer = answers[path];
    return answer === undefined
      ? new Response(JSON.stringify({ error: { code: 'TG_NOT_FOUND', message: `no ${path}` } }), { status: 404 })
      : new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return asked;
}

const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-02T00:00:00Z';
const RATE = { rows: [{ bucket: '2026-11-01T00:00:00.000Z', n: 7 }] };

describe("the explorer's first requests", () => {
  it('tells the pages apart by path (the topic decoded)', () => {
    expect([
      pageTopic('/explore'),
      pageTopic('/explore/'),
      pageTopic('/explore/a%20b'),
      pageTopic('/explore/x/'),
    ]).toEqual([undefined, undefined, 'a b', 'x']);
  });

  it('a topic page asks for its rate aggregation alone: the URL’s window, its bucket and its filters', async () => {
    const asked = fakeApi({ '/v1/topics/orders/query': RATE });
    const first = startFirstRequests({
      pathname: '/explore/orders',
      search: `?value->>status=eq.paid&since=${SINCE}&until=${UNTIL}`,
    });
    if (first.page !== 'topic' || !first.rate) throw new Error('no rate started');
    const rate = await first.rate.rate;
    expect([rate.bucket.text, rate.series.total]).toEqual(['15m', 7]);
    expect(asked).toEqual([
      {
        method: 'POST',
        path: '/v1/topics/orders/query',
        body: {
          select: [{ fn: 'count', as: 'n' }],
          groupBy: [{ bucket: '15m', as: 'bucket' }],
          order: [{ field: 'bucket', dir: 'asc' }],
          since: SINCE,
          until: UNTIL,
          limit: 10_000,
          where: { field: 'value->>status', op: 'eq', value: 'paid' },
        },
      },
    ]);
  });

  it('a topic page whose window is not a time asks nothing (the page shows the problem)', () => {
    const asked = fakeApi({});
    const first = startFirstRequests({ pathname: '/explore/orders', search: '?since=yesterday' });
    expect([first.page === 'topic' && first.rate, asked]).toEqual([undefined, []]);
  });

  it('the overview asks for the listing, then at once for the first topic’s sparkline (48 buckets at most)', async () => {
    const listing = {
      topics: [
        { name: 'accounts', kind: 'table', schema: 's' },
        { name: 'clicks', kind: 'topic', schema: 's' },
        { name: 'orders', kind: 'topic', schema: 's' },
      ],
    };
    const asked = fakeApi({ '/v1/topics': listing, '/v1/topics/clicks/query': RATE });
    const first = startFirstRequests({ pathname: '/explore', search: `?since=${SINCE}&until=${UNTIL}` });
    if (first.page !== 'overview') throw new Error('not the overview');
    expect(first.window).toEqual({ since: SINCE, until: UNTIL });
    expect((await first.topics).map((t) => t.name)).toEqual(['accounts', 'clicks', 'orders']);
    const spark = await first.firstSpark;
    expect(spark?.topic).toBe('clicks');
    expect((await spark!.rate).bucket.text).toBe('30m');
    expect(asked.map((a) => `${a.method} ${a.path}`)).toEqual(['GET /v1/topics', 'POST /v1/topics/clicks/query']);
  });

  it('the overview’s failed listing is the pages’ to show: no sparkline is asked for', async () => {
    const asked = fakeApi({});
    const first = startFirstRequests({ pathname: '/explore', search: '' });
    if (first.page !== 'overview') throw new Error('not the overview');
    await expect(first.topics).rejects.toThrow('no /v1/topics');
    await expect(first.firstSpark).rejects.toThrow('no /v1/topics');
    expect(asked.map((a) => a.path)).toEqual(['/v1/topics']);
  });
});
