/**
 * Filters on an Avro key become comparisons with framed bytes, one per key schema version (issue 13), so they
 * stay bare-column comparisons the storage evaluates; ranges and patterns on framed bytes are refused.
 */
import { describe, expect, it } from 'vitest';
import { frameKeyFilters, keyFraming } from '../../src/query/passes/key-framing.js';
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
  version: async (subject, v): Promise<SubjectVersion | null> => {
    const s = VERSIONS[v as number];
    return s ? { ...s, subject, version: v as number, schemaType: 'AVRO' } : null;
  },
  versions: async () => [1, 2, 3],
};

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
