/**
 * Filters on an Avro key become comparisons with framed bytes, one per key schema version, so they
 * stay bare-column comparisons the storage evaluates; ranges and patterns on framed bytes are refused.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/query/planner.js';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { frameKeyFilters as framePass } from '../../src/query/passes/frame-key-filters.js';
import { keyFraming, keyFrames, type KeyFraming } from '../../src/blob/avro/key-framing.js';
import type { RegistryPort, SubjectVersion } from '../../src/blob/avro/schema-registry.js';
import type { ColumnNode, LiteralNode, PredicateNode } from '../../src/query/tree/nodes.js';

/** Key subject with a string version (id 7), a record version (id 8, not writable from text) and a long (id 9). */
const VERSIONS: Record<number, { id: number; schema: string }> = {
  1: { id: 7, schema: '"string"' },
  2: { id: 8, schema: '{"type":"record","name":"K","fields":[{"name":"a","type":"string"}]}' },
  3: { id: 9, schema: '{"type":"long"}' },
};
const registry: RegistryPort = {
  byId: async () => null,
  isKnown: () => false,
  version: async (subject, v): Promise<SubjectVersion | null> => {
    const s = VERSIONS[v as number];
    return s ? { ...s, subject, version: v as number, schemaType: 'AVRO' } : null;
  },
  versions: async () => [1, 2, 3],
};

/** The pass over `p`, with the frames computed for its texts as the planning entry's caller does. */
const frameKeyFilters = (p: PredicateNode, f: KeyFraming) => framePass(p, keyFrames(f, [p]));

const key: ColumnNode = { kind: 'column', name: 'key', type: 'varbinary', source: { kind: 'table' } };
const bytes = (text: string): LiteralNode => ({
  kind: 'literal',
  type: 'varbinary',
  value: { t: 'varbinary', v: Buffer.from(text) },
});
const hexOf = (p: PredicateNode) =>
  p.kind === 'in' ? p.values.map((l) => (l.value as { v: Buffer }).v.toString('hex')) : [];

describe('framed key filters', () => {
  it('eq -> IN over every version writable from the text; a number also frames as the long version', async () => {
    const f = await keyFraming('t', { format: 'avro' }, registry);
    expect(f?.encoders.map((e) => e.id)).toEqual([7, 9]);
    const text = frameKeyFilters({ kind: 'compare', op: 'eq', column: key, value: bytes('pay-1') }, f!)!;
    expect(hexOf(text)).toEqual([`0000000007 0a ${Buffer.from('pay-1').toString('hex')}`.replace(/ /g, '')]);
    const num = frameKeyFilters({ kind: 'compare', op: 'eq', column: key, value: bytes('-3') }, f!)!;
    // "-3" as an Avro string (length 2 -> zigzag 04) and as an Avro long (zigzag -3 -> 05).
    expect(hexOf(num)).toEqual(['0000000007042d33', '000000000905']);
  });

  it('neq is NOT IN, in lists every framing, inside and/or/not; other columns are left alone', async () => {
    const f = (await keyFraming('t', { format: 'avro' }, registry))!;
    const other: PredicateNode = { kind: 'compare', op: 'eq', column: { ...key, name: 'value' }, value: bytes('x') };
    const tree: PredicateNode = {
      kind: 'or',
      items: [
        { kind: 'compare', op: 'neq', column: key, value: bytes('a') },
        { kind: 'not', inner: { kind: 'in', column: key, values: [bytes('1'), bytes('b')] } },
        other,
      ],
    };
    const out = frameKeyFilters(tree, f) as { kind: 'or'; items: PredicateNode[] };
    expect(out.items[0]).toMatchObject({ kind: 'not', inner: { kind: 'in' } });
    const inner = (out.items[1] as { inner: PredicateNode }).inner;
    expect(hexOf(inner)).toEqual(['00000000070231', '000000000902', '00000000070262']);
    expect(out.items[2]).toBe(other);
  });

  it('refuses ranges and patterns on a framed key', async () => {
    const f = (await keyFraming('t', { format: 'avro' }, registry))!;
    expect(() => frameKeyFilters({ kind: 'compare', op: 'gt', column: key, value: bytes('a') }, f)).toThrow(
      expect.objectContaining({ code: 'TG_BAD_OPERATOR' }),
    );
  });

  it('a raw or undeclared key needs no framing', async () => {
    expect(await keyFraming('t', { format: 'raw' }, registry)).toBeNull();
    expect(await keyFraming('t', undefined, registry)).toBeNull();
  });
});

describe('key framing in the planning entry', () => {
  const topic = topicOf([table('key', 'varbinary'), table('timestamp_broker', 'timestamp(3)')]);
  const eq = (text: string): PredicateNode => ({ kind: 'compare', op: 'eq', column: key, value: bytes(text) });

  it('frames the request filters and the caller row filter from the frames handed in, as data', async () => {
    const framing = (await keyFraming('t', { format: 'avro' }, registry))!;
    const where = eq('a');
    const rows = { filter: eq('b'), principal: 'p' };
    const frames = keyFrames(framing, [where, rows.filter]);
    expect([...frames.frames.keys()]).toEqual(['a', 'b']);
    const p = plan(
      { kind: 'read', topic, read: { where, since: '-1h' }, token: null, keyFrames: frames },
      testPolicy({ rows }),
    );
    const sql = compileQuery(p.tree);
    expect(sql).toContain(`"key" IN (X'${'0000000007' + '0262'}')`);
    expect(sql).toContain(`"key" IN (X'${'0000000007' + '0261'}')`);
  });

  it('a text no key version can hold matches nothing', () => {
    const frames = { subject: 't-key', frames: new Map([['x', []]]) };
    expect(framePass(eq('x'), frames)).toEqual({ kind: 'in', column: key, values: [] });
  });
});
