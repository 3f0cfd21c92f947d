/**
 * What keeps a follow open (http/follow-access.ts), the reload that changes it (server/access-reload.ts) and the
 * body that ends on it (read/follow/follow-body.ts): a new access state that withdraws the caller's grant, key or
 * row scope refuses it with the error a new request would get; an expired credential is refused, and ends an idle
 * follow by its timer; a reload of a file with a problem keeps the state in force; the body writes no row the guard
 * refuses, and its cut mark is the guard's error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { AccessHolder } from '../../src/access/access-holder.js';
import { createAccess } from '../../src/access/create-access.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { credentialExpiry, type Principal } from '../../src/access/principal.js';
import { ApiError } from '../../src/core/errors.js';
import { followBody, type FollowGuard } from '../../src/read/follow/follow-body.js';
import { followFraming } from '../../src/read/follow/follow-frames.js';
import type { FollowItem } from '../../src/read/follow/follow-loop.js';
import { reloadAccess } from '../../src/server/access-reload.js';
import { FollowAccess } from '../../src/http/follow-access.js';
import { loadConfig } from '../../src/server/load-config.js';
import { table, topicOf } from '../cases/columns.js';

const topic = topicOf([table('key', 'varbinary'), table('timestamp_broker', 'timestamp(3)')]);
const KEY = 'key-follower-0000000000000000000000';
const OTHER_KEY = 'key-other-000000000000000000000000';
const dir = mkdtempSync(join(tmpdir(), 'topicgate-follow-access-'));
const file = join(dir, 'c.yaml');

/** Writes the config file: the follower's key unless `removed`, its grant unless `revoked`, a row filter. */
function writeConfig(o: { removed?: boolean; revoked?: boolean; filter?: string; bad?: boolean } = {}) {
  writeFileSync(
    file,
    stringify({
      auth: {
        apiKeys: [
          ...(o.removed ? [] : [{ principal: 'f', sha256: apiKeyHash(KEY), roles: ['reader'] }]),
          { principal: 'o', sha256: apiKeyHash(OTHER_KEY), roles: ['other'] },
        ],
      },
      access: [{ roles: [o.revoked ? 'other' : 'reader'], topics: ['t'], actions: ['read'] }],
      rowPolicies: {
        default: 'allow',
        t: [{ roles: ['reader'], filter: o.bad ? 'key=nope.(x' : (o.filter ?? 'key=in.(a,b)') }],
      },
    }),
  );
  return loadConfig({
    TOPICGATE_TRINO_URL: 'http://127.0.0.1:1',
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-bytes-for-this-test',
  });
}

/** An app holding the access state of `config`, and a follow of topic t by the key's caller under it. */
async function following() {
  const config = writeConfig();
  const holder = new AccessHolder(createAccess(config));
  const app = {
    tg: { config },
    accessHolder: holder,
    get access() {
      return holder.current;
    },
  } as unknown as FastifyInstance;
  const headers = { 'x-api-key': KEY };
  const principal = await app.access.authenticator.authenticate(headers);
  const request = { headers, principal } as unknown as FastifyRequest;
  const rows = { filter: app.access.rowPolicies.filterFor(topic, principal), principal: principal.id };
  const guard = new FollowAccess(app, request, topic, rows);
  const reload = (o: Parameters<typeof writeConfig>[0]) =>
    reloadAccess(app, { load: () => writeConfig(o), policyProblems: async () => [] });
  return { app, holder, guard, reload };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'allowed',
    (err: unknown) => (err instanceof ApiError ? err.code : String(err)),
  );

describe('an open follow under the access state in force', () => {
  it('goes on while its access is unchanged, a reload that keeps it included', async () => {
    const { guard, reload, holder } = await following();
    await expect(guard.check()).resolves.toBeUndefined();
    expect(await reload({})).toEqual([]);
    expect(holder.generation).toBe(1);
    await expect(guard.check()).resolves.toBeUndefined();
  });

  it.each([
    ['its grant is withdrawn', { revoked: true }, 'TG_FORBIDDEN'],
    ['its key is removed', { removed: true }, 'TG_UNAUTHENTICATED'],
    ['its row policy changes', { filter: 'key=in.(a)' }, 'TG_FORBIDDEN'],
  ])('is refused once %s', async (_what, change, code) => {
    const { guard, reload } = await following();
    expect(await reload(change)).toEqual([]);
    expect(await codeOf(guard.check())).toBe(code);
  });

  it('keeps the state in force when the new file has a problem, and keeps the query limiter on a good one', async () => {
    const { app, holder, guard, reload } = await following();
    const before = app.access;
    const problems = await reload({ revoked: true, bad: true });
    expect(problems).toEqual([expect.stringContaining('rowPolicies.t[0].filter')]);
    expect([app.access, holder.generation]).toEqual([before, 0]);
    await expect(guard.check()).resolves.toBeUndefined();
    expect(await reload({ revoked: true })).toEqual([]);
    expect(app.access).not.toBe(before);
    expect(app.access.queries).toBe(before.queries);
    expect(app.tg.config.access).toEqual([{ roles: ['other'], topics: ['t'], actions: ['read'] }]);
  });
});

describe('a follow with an expiring credential', () => {
  const jwtCaller = (expSeconds: number): Principal => ({
    id: 'jwt:https://idp.test/:f',
    name: 'f',
    roles: [],
    claims: { sub: 'f', exp: expSeconds },
    via: 'jwt',
  });
  const guardOf = (p: Principal) => {
    const access = createAccess(writeConfig());
    const app = { access } as unknown as FastifyInstance;
    return new FollowAccess(app, { headers: {}, principal: p } as unknown as FastifyRequest, topic, {
      filter: null,
      principal: p.id,
    });
  };

  it('reads the expiry from the token, and none from a principal without one', () => {
    expect(credentialExpiry(jwtCaller(1_800_000_000))).toBe(1_800_000_000_000);
    expect(credentialExpiry({ ...jwtCaller(0), claims: { sub: 'f' } })).toBeUndefined();
  });

  it('is refused from its expiry on, and its timer ends it even with nothing to write', async () => {
    const guard = guardOf(jwtCaller((Date.now() + 50) / 1000));
    expect(await codeOf(guard.ended)).toBe('TG_UNAUTHENTICATED');
    expect(() => guard.checkExpiry()).toThrow(expect.objectContaining({ code: 'TG_UNAUTHENTICATED', status: 401 }));
    guard.close();
  });
});

describe("a follow's body under its guard", () => {
  const framing = () => followFraming('sse', (p) => `${p.ts}/${p.skip}`, 1000);
  const rows: FollowItem = {
    kind: 'rows',
    columns: [{ name: 'key', type: 'varchar' }],
    rows: [['a']],
    points: [{ ts: '2026-11-30 08:00:00.000', skip: 1 }],
  };
  const onError = (err: unknown) => {
    const e = err as ApiError;
    return { code: e.code, message: e.message, status: e.status };
  };
  async function written(items: AsyncGenerator<FollowItem, void, undefined>, guard: FollowGuard, cut = () => {}) {
    const out: string[] = [];
    const cutting = (err: unknown) => {
      cut();
      return onError(err);
    };
    const failed = await (async () => {
      for await (const c of followBody(items, framing(), { keepAliveMs: 60_000, onError: cutting, guard }))
        out.push(typeof c === 'string' ? c : Buffer.from(c).toString());
    })().then(
      () => null,
      (err: unknown) => (err as ApiError).code,
    );
    return { out: out.join(''), failed };
  }

  it('writes no row the guard refuses: its error is the cut mark', async () => {
    async function* items(): AsyncGenerator<FollowItem, void, undefined> {
      yield rows;
    }
    const refusal = new ApiError('TG_FORBIDDEN', 'this caller may no longer read topic "t"');
    const guard = { check: () => Promise.reject(refusal), ended: new Promise<never>(() => undefined) };
    const { out, failed } = await written(items(), guard);
    expect(failed).toBe('TG_FORBIDDEN');
    expect(out).not.toContain('data: {"key"');
    expect(out.endsWith(`event: error\ndata: ${JSON.stringify({ error: onError(refusal) })}\n\n`)).toBe(true);
  });

  it('ends an idle follow when the guard says so', async () => {
    // The follow's loop waits for its next poll until the follow's signal aborts (http/follow-read.ts aborts it
    // when the body is cut).
    const gone = new AbortController();
    async function* idle(): AsyncGenerator<FollowItem, void, undefined> {
      await new Promise((resolve) => gone.signal.addEventListener('abort', resolve));
    }
    const expired = new ApiError('TG_UNAUTHENTICATED', 'the credential of this follow has expired');
    const ended = Promise.reject(expired) as Promise<never>;
    ended.catch(() => undefined);
    const guard = { check: () => Promise.resolve(), ended };
    const { out, failed } = await written(idle(), guard, () => gone.abort());
    expect(failed).toBe('TG_UNAUTHENTICATED');
    expect(out.endsWith(`event: error\ndata: ${JSON.stringify({ error: onError(expired) })}\n\n`)).toBe(true);
  });
});
