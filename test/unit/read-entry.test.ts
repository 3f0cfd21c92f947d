/**
 * The read entry (src/entry/) as an entrance other than HTTP uses it: no fastify, no request, no reply. A caller
 * plans a read, opens it against a fake Trino holding one topic table, and gets the encoded body, the query id,
 * the columns and the next page's token; the token then continues the read where the page ended. The topic is
 * found for the caller as over HTTP: a topic it may not see is a 404, an action not granted a 403, each decision
 * recorded in its audit facts, and its row scope goes into the plan's SQL.
 */
import { describe, expect, it } from 'vitest';
import { limitsOf } from '../../src/config/access-schema.js';
import { Keyring } from '../../src/core/signed-token.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { Grants } from '../../src/access/grants.js';
import type { Principal } from '../../src/access/principal.js';
import { RowPolicies } from '../../src/access/row-policy.js';
import { encoderFor, openRead } from '../../src/entry/open-read.js';
import { planRead, type ReadOptions } from '../../src/entry/plan-read.js';
import { readScopeOf, topicFor, type TopicCall } from '../../src/entry/read-topic.js';
import type { ReadCall, ReadServices } from '../../src/entry/read-call.js';
import { QueryLease } from '../../src/access/query-lease.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import { GatewayMemory } from '../../src/read/gateway-memory.js';
import { HeldResults } from '../../src/read/held-results.js';
import { loadConfig } from '../../src/server/load-config.js';
import { table, topicOf } from '../cases/columns.js';
import { TopicTrino } from '../fakes/topic-trino.js';

const topic = topicOf([table('key', 'varbinary'), table('timestamp_broker', 'timestamp(3)')], 'orders');
const T0 = Date.parse('2026-11-30T08:00:00.000Z');

/** A gateway's services and a caller's call over `trino`, as an entrance builds them. */
function callOver(trino: TopicTrino): ReadCall {
  const config = loadConfig({});
  const services: ReadServices = {
    config,
    keyring: Keyring.fromSecrets('a-secret-of-at-least-thirty-two-bytes!'),
    held: new HeldResults(0, 1000),
    memory: new GatewayMemory(2 ** 30),
  };
  const limiter = new QueryLimiter(limitsOf({ concurrentQueries: 1, queueWaitMs: 5 }));
  const lease = new QueryLease(trino, limiter, 'alice', new AbortController().signal);
  return { services, caller: { id: 'alice', name: 'alice', via: 'api-key' }, trino: lease };
}

/** Reads a page in NDJSON through the entry: its lines, query id, columns and the next page's token. */
async function readPage(call: ReadCall, o: Omit<ReadOptions, 'topic' | 'rows'> & Partial<Pick<ReadOptions, 'rows'>>) {
  const read = { rows: { filter: null, principal: 'alice' }, ...o, topic };
  const planned = await planRead(call, read);
  const entry = encoderFor('application/x-ndjson', undefined);
  const memory = call.services.memory.account();
  const opened = await openRead(call, planned, entry, {
    paged: true,
    token: o.cursor,
    topic: topic.id,
    decode: false,
    signal: new AbortController().signal,
    memory,
  });
  const next = await opened.readAhead();
  let finished = false;
  const { columns, chunks } = opened.body({ drained: () => true, finished: () => void (finished = true) });
  let text = '';
  for await (const c of chunks) text += typeof c === 'string' ? c : Buffer.from(c).toString();
  memory.close();
  const lines = text.split('\n').filter((l) => l !== '');
  return { lines, queryId: opened.queryId, columns, next, finished, contentType: opened.entry.contentType };
}

describe('the read entry, without a transport', () => {
  const trino = new TopicTrino();
  for (const [i, key] of ['a', 'b', 'c'].entries()) trino.append(key, trinoTimestampText(T0 + i * 1000));
  const window = { since: new Date(T0).toISOString(), until: new Date(T0 + 10_000).toISOString() };

  it('plans, opens and encodes a page, naming the next one; its token reads on where the page ended', async () => {
    const call = callOver(trino);
    const first = await readPage(call, { req: { where: null, ...window, limit: 2 } });
    expect(first.contentType).toBe('application/x-ndjson; charset=utf-8');
    expect(first.columns.map((c) => c.name)).toEqual(['key', 'timestamp_broker']);
    expect(first.queryId).not.toBe('');
    expect(first.finished).toBe(true);
    expect(first.lines).toHaveLength(2);
    expect(first.next?.token).toEqual(expect.any(String));
    const second = await readPage(call, { req: { where: null, ...window, limit: 2 }, cursor: first.next!.token });
    expect(second.lines).toHaveLength(1);
    expect(second.next).toBeUndefined();
    const keys = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { key: string }).key);
    expect([keys(first.lines), keys(second.lines)]).toEqual([['a', 'b'], ['c']]);
  });

  it('refuses a column codec for a format compressed on the wire, before anything is read', () => {
    expect(() => encoderFor('application/x-ndjson', 'zstd')).toThrow(/compression=zstd/);
  });

  it('authorizes as over HTTP: 404 unseen, 403 without the action, the audit facts, the row scope in the SQL', async () => {
    const analyst: Principal = { id: 'key:ann', name: 'ann', roles: ['analyst'], claims: {}, via: 'api-key' };
    const rules = [{ roles: ['analyst'], topics: ['orders'], actions: ['read' as const] }];
    const policies = new RowPolicies({
      orders: [{ roles: ['analyst'], filter: 'timestamp_broker=lt.2026-11-30T08:00:01Z' }],
    });
    const access = { grants: new Grants(rules, true), rowPolicies: policies };
    const call = (audit: TopicCall['audit']): TopicCall => ({
      access,
      principal: analyst,
      audit,
      services: {
        config: loadConfig({}),
        catalog: { model: async () => topic } as unknown as TopicCall['services']['catalog'],
      },
    });
    const audit = {};
    expect(await topicFor(call(audit), 'orders')).toBe(topic);
    expect(audit).toEqual({ topic: 'orders', action: 'read' });
    await expect(topicFor(call({}), 'payments')).rejects.toMatchObject({ code: 'TG_TOPIC_NOT_FOUND' });
    await expect(topicFor(call({}), 'orders', true)).rejects.toMatchObject({ code: 'TG_FORBIDDEN' });
    const rows = readScopeOf(call({}), topic);
    expect(rows.principal).toBe('key:ann');
    const page = await readPage(callOver(trino), { req: { where: null, ...window, limit: 10 }, rows });
    expect(page.lines.map((l) => (JSON.parse(l) as { key: string }).key)).toEqual(['a']);
  });
});
