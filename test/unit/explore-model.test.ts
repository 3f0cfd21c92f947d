/**
 * The explorer's page logic that needs no browser (web/explore/model/): the JSON tree that keeps every digit, the
 * window and its bucket width, the rate series, the builder's URL, where, curl and page URL, the top values'
 * candidates and marginals, and the Server-Sent Events reader of the live view.
 */
import { describe, expect, it } from 'vitest';
import { jsonText, parseJsonTree, scalarText, member } from '../../web/explore/model/json-tree.js';
import {
  bucketFor,
  resolveInstant,
  resolveWindow,
  narrowed,
  zoomOut,
  shifted,
  timeLabels,
} from '../../web/explore/model/time-window.js';
import { rateSeries } from '../../web/explore/model/rate-series.js';
import {
  curlFor,
  eventsPath,
  filterParam,
  followPath,
  splitList,
  stateFromSearch,
  whereOf,
  type QueryState,
} from '../../web/explore/model/query-state.js';
import {
  arrowPath,
  lowCardinality,
  marginals,
  topValuesQuery,
  type Candidate,
} from '../../web/explore/model/top-values.js';
import { SseParser } from '../../web/explore/model/sse.js';

const NOW = Date.parse('2026-11-02T12:00:00Z');

describe('json tree', () => {
  it('keeps the digits of integers beyond 2^53 and of decimals', () => {
    const t = parseJsonTree('{"trace_id": 9007199254740993, "amount": 317.750, "e": -1.5e+3, "a": [true, null, "x"]}');
    expect(jsonText(t)).toBe('{"trace_id":9007199254740993,"amount":317.750,"e":-1.5e+3,"a":[true,null,"x"]}');
    expect(scalarText(member(t, 'trace_id'))).toBe('9007199254740993');
  });

  it('reads strings with escapes, keeps \\x byte text as it is, and refuses what is not JSON', () => {
    expect(parseJsonTree('"\\\\xc328 \\u00e9 \\"q\\""')).toEqual({ kind: 'string', value: '\\xc328 é "q"' });
    expect(parseJsonTree(' {} ')).toEqual({ kind: 'object', entries: [] });
    for (const bad of ['{', '[1,]', '01', '{"a" 1}', '1 2', 'nul', '"\u0001"', "'a'"]) {
      expect(() => parseJsonTree(bad), bad).toThrow(SyntaxError);
    }
  });
});

describe('time window', () => {
  it('resolves ISO instants (UTC without a zone) and relative times as the API does', () => {
    expect(resolveInstant('now', NOW)).toBe(NOW);
    expect(resolveInstant('-15m', NOW)).toBe(NOW - 900_000);
    expect(resolveInstant('-7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(resolveInstant('2026-11-01T00:00:00', NOW)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(resolveInstant('2026-11-01T02:00:00+02:00', NOW)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(resolveInstant('yesterday', NOW)).toBeUndefined();
    expect(resolveInstant('-15x', NOW)).toBeUndefined();
  });

  it('names the bad bound, and refuses an empty window', () => {
    expect(resolveWindow({ since: 'soon', until: 'now' }, NOW)).toEqual({
      problem: 'since: "soon" is not a time (ISO-8601, or now, -15m, -2h, -7d)',
    });
    expect(resolveWindow({ since: 'now', until: '-1h' }, NOW)).toEqual({ problem: 'until must be after since' });
    expect(resolveWindow({ since: '-1h', until: 'now' }, NOW)).toEqual({ from: NOW - 3_600_000, to: NOW });
  });

  it.each([
    [60_000, '1s'],
    [3_600_000, '30s'],
    [86_400_000, '15m'],
    [3 * 86_400_000, '1h'],
    [30 * 86_400_000, '6h'],
    [10_000 * 86_400_000, '7d'],
  ])('a window of %i ms gets %s buckets (at most 120)', (width, text) => {
    expect(bucketFor(width).text).toBe(text);
  });

  it('labels the time axis in UTC, 24-hour, as fine as its ticks, with the date where the day changes', () => {
    const s = (iso: string) => Date.parse(iso) / 1000;
    expect(timeLabels([s('2026-11-01T22:00:00Z'), s('2026-11-01T23:00:00Z'), s('2026-11-02T00:00:00Z')], 3600)).toEqual(
      ['11-01 22:00', '23:00', '11-02 00:00'],
    );
    expect(timeLabels([s('2026-11-01T00:00:05Z'), s('2026-11-01T00:00:10Z')], 5)).toEqual([
      '11-01 00:00:05',
      '00:00:10',
    ]);
    expect(timeLabels([s('2026-11-01T00:00:00.250Z')], 0.25)).toEqual(['11-01 00:00:00.250']);
    expect(timeLabels([s('2026-11-01T00:00:00Z'), s('2026-11-08T00:00:00Z')], 7 * 86_400)).toEqual([
      '2026-11-01',
      '2026-11-08',
    ]);
  });

  it('narrows to whole milliseconds, zooms out around the middle, and moves by its width', () => {
    expect(narrowed(1000.4, 2000.2)).toEqual({ since: '1970-01-01T00:00:01.000Z', until: '1970-01-01T00:00:02.001Z' });
    expect(zoomOut(10_000, 20_000)).toEqual({ since: '1970-01-01T00:00:05.000Z', until: '1970-01-01T00:00:25.000Z' });
    expect(shifted(10_000, 20_000, -1)).toEqual({
      since: '1970-01-01T00:00:00.000Z',
      until: '1970-01-01T00:00:10.000Z',
    });
  });
});

describe('rate series', () => {
  it('spreads the non-empty buckets over every bucket of the window, from the epoch-aligned first one', () => {
    const s = rateSeries(
      [
        { bucket: '2026-11-01T00:00:00.000Z', n: 3 },
        { bucket: '2026-11-01T02:00:00.000Z', n: 5 },
      ],
      { from: Date.parse('2026-11-01T00:30:00Z'), to: Date.parse('2026-11-01T03:00:00Z') },
      3_600_000,
    );
    expect(s.starts.map((t) => new Date(t).toISOString())).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T01:00:00.000Z',
      '2026-11-01T02:00:00.000Z',
    ]);
    expect([s.counts, s.total]).toEqual([[3, 0, 5], 8]);
  });
});

describe('query state', () => {
  const state: QueryState = {
    window: { since: '2026-11-01T00:00:00Z', until: '-1h' },
    filters: [
      { field: 'value->customer->address->>country', op: 'in', value: 'DE, FR, "a,b"', negate: false },
      { field: 'key', op: 'like', value: 'order-1*', negate: true },
      { field: '', op: 'eq', value: 'ignored', negate: false },
    ],
    select: ['key', 'country:value->customer->address->>country'],
  };

  it('writes filters in PostgREST grammar, lists quoted where they must be', () => {
    expect(filterParam(state.filters[0]!)).toBe('in.(DE,FR,"a,b")');
    expect(filterParam(state.filters[1]!)).toBe('not.like.order-1*');
    // Typed quotes group (a backslash escapes inside them), as in PostgREST's own lists.
    expect(filterParam({ field: 'v', op: 'in', value: '"say \\"hi\\"",x\\y', negate: false })).toBe(
      'in.("say \\"hi\\"","x\\\\y")',
    );
    expect(splitList(' a ,"b,c" , ,d')).toEqual(['a', 'b,c', 'd']);
  });

  it('the URL keeps the grammar readable, and the page URL reads back into the same state', () => {
    const path = eventsPath('orders', state, [['limit', '20']]);
    expect(path).toBe(
      '/v1/topics/orders/events?select=key,country:value->customer->address->>country' +
        '&value->customer->address->>country=in.(DE,FR,%22a,b%22)&key=not.like.order-1*' +
        '&since=2026-11-01T00:00:00Z&until=-1h&limit=20',
    );
    const back = stateFromSearch(path.split('?')[1]!, { since: '-1d', until: 'now' });
    expect(back).toEqual({
      ...state,
      filters: state.filters.slice(0, 2).map((f, i) => (i === 0 ? { ...f, value: 'DE,FR,"a,b"' } : f)),
    });
    expect(new URL(path, 'http://x').searchParams.get('value->customer->address->>country')).toBe('in.(DE,FR,"a,b")');
  });

  it('the same filters as a POST where, and following from now with the same shape', () => {
    expect(whereOf(state.filters)).toEqual({
      and: [
        { field: 'value->customer->address->>country', op: 'in', value: ['DE', 'FR', 'a,b'] },
        { not: { field: 'key', op: 'like', value: 'order-1*' } },
      ],
    });
    expect(whereOf([])).toBeUndefined();
    expect(whereOf([{ field: 'key', op: 'is', value: 'null', negate: false }])).toEqual({
      field: 'key',
      op: 'is',
      value: 'null',
    });
    expect(followPath('a b', { ...state, filters: [] })).toBe(
      '/v1/topics/a%20b/events?select=key,country:value->customer->address->>country&since=now&follow=true',
    );
  });

  it('curl names the credential as a variable, never its value, and quotes the URL for the shell', () => {
    expect(curlFor("http://h/v1/topics/o/events?key=eq.it's", true)).toBe(
      `curl -H "Authorization: Bearer $TOPICGATE_TOKEN" 'http://h/v1/topics/o/events?key=eq.it'\\''s'`,
    );
    expect(curlFor('http://h/x', false)).toBe("curl 'http://h/x'");
  });
});

describe('top values', () => {
  const candidates: Candidate[] = [
    { label: 'status', field: 'value->>status', column: 'value', path: ['status'] },
    { label: 'customer.id', field: 'value->customer->>id', column: 'value', path: ['customer', 'id'] },
    {
      label: 'customer.address.country',
      field: 'value->customer->address->>country',
      column: 'value',
      path: ['customer', 'address', 'country'],
    },
  ];
  const row = (i: number) =>
    parseJsonTree(
      JSON.stringify({
        value: {
          status: ['paid', 'shipped'][i % 2],
          customer: { id: `c${i}`, address: i % 3 ? { country: 'DE' } : undefined },
        },
      }),
    );

  it('arrow paths from JSON paths, and none for names the grammar cannot spell', () => {
    expect(arrowPath('$.customer.address.country')).toBe('value->customer->address->>country');
    expect(arrowPath('$.status')).toBe('value->>status');
    expect(arrowPath('$.items[0].sku')).toBeUndefined();
    expect(arrowPath('$.a b')).toBeUndefined();
  });

  it('picks the fields whose sample values repeat, fewest distinct values first', () => {
    const rows = Array.from({ length: 12 }, (_, i) => row(i));
    expect(lowCardinality(candidates, rows).map((c) => c.label)).toEqual(['customer.address.country', 'status']);
    expect(lowCardinality(candidates, rows.slice(0, 3))).toEqual([]);
  });

  it('one aggregation over the candidates, and each one’s marginal counts from it', () => {
    const cs = [candidates[0]!, candidates[2]!];
    expect(topValuesQuery(cs)).toEqual({
      select: ['f0:value->>status', 'f1:value->customer->address->>country', { fn: 'count', as: 'n' }],
      groupBy: ['value->>status', 'value->customer->address->>country'],
      order: [{ field: 'n', dir: 'desc' }],
      limit: 1000,
    });
    const m = marginals(cs, [
      { f0: 'paid', f1: 'DE', n: 5 },
      { f0: 'shipped', f1: 'DE', n: 3 },
      { f0: 'paid', f1: null, n: 2 },
    ]);
    expect(m.total).toBe(10);
    expect(m.approximate).toBe(false);
    expect(m.fields).toEqual([
      {
        label: 'status',
        values: [
          { value: 'paid', count: 7, share: 0.7 },
          { value: 'shipped', count: 3, share: 0.3 },
        ],
      },
      {
        label: 'customer.address.country',
        values: [
          { value: 'DE', count: 8, share: 0.8 },
          { value: null, count: 2, share: 0.2 },
        ],
      },
    ]);
  });
});

describe('Server-Sent Events', () => {
  it('events across chunks, CRLF split between chunks, comments, multi-line data and ids', () => {
    const p = new SseParser();
    expect(p.push(': keep-alive\r\n\r\nid: 7\r\ndata: {"a":')).toEqual([]);
    expect(p.push('1}\r')).toEqual([]);
    expect(p.push('\n\r\nevent: note\ndata: x\ndata: y\n\n')).toEqual([
      { event: 'message', data: '{"a":1}', id: '7' },
      { event: 'note', data: 'x\ny', id: '7' },
    ]);
    expect(p.lastEventId).toBe('7');
    expect(p.push('data:no space\rid: 8\r\r\n')).toEqual([{ event: 'message', data: 'no space', id: '8' }]);
    expect(p.lastEventId).toBe('8');
  });
});
