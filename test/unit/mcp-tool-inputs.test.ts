/**
 * The tools' argument schemas (src/mcp/tool-inputs.ts): self-contained JSON Schema for clients that resolve only
 * local references, built from the `/query` body's schema, and the check of a call's arguments naming what is wrong.
 */
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { QueryBody } from '../../src/query/request/read-schema.js';
import { argumentsOf, CountInput, jsonSchemaOf, QueryInput } from '../../src/mcp/tool-inputs.js';
import { TOOLS } from '../../src/mcp/tool-list.js';

/** Every `$ref` of a JSON value. */
const refsIn = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.flatMap(refsIn)
    : v !== null && typeof v === 'object'
      ? Object.entries(v).flatMap(([k, x]) => (k === '$ref' && typeof x === 'string' ? [x] : refsIn(x)))
      : [];

describe('jsonSchemaOf', () => {
  it('gathers a recursive definition named by $id at the top, referenced locally', () => {
    const Node = Type.Cyclic({ Node: Type.Object({ next: Type.Optional(Type.Ref('Node')) }) }, 'Node');
    const schema = jsonSchemaOf(Type.Object({ head: Node }));
    expect(JSON.stringify(schema)).not.toContain('"$id"');
    expect(refsIn(schema).sort()).toEqual(['#/$defs/Node', '#/$defs/Node']);
    expect(Object.keys(schema.$defs as object)).toEqual(['Node']);
  });

  it('leaves a schema without definitions as it is', () => {
    const plain = Type.Object({ a: Type.String({ minLength: 1 }) }, { additionalProperties: false });
    expect(jsonSchemaOf(plain)).toEqual(JSON.parse(JSON.stringify(plain)));
  });

  it('every tool: an object schema whose references all resolve in it', () => {
    expect(TOOLS.map((t) => t.name)).toEqual([
      'list_topics',
      'describe_topic',
      'sample_events',
      'query',
      'explain',
      'count',
    ]);
    for (const t of TOOLS) {
      const schema = jsonSchemaOf(t.input);
      expect(schema.type, t.name).toBe('object');
      expect(schema.additionalProperties, t.name).toBe(false);
      for (const ref of refsIn(schema)) {
        expect(ref, t.name).toMatch(/^#\/\$defs\//);
        expect((schema.$defs as Record<string, unknown>)[ref.slice('#/$defs/'.length)], t.name).toBeDefined();
      }
    }
  });

  it('query takes the POST /query body but format and explain, and a topic', () => {
    const members = Object.keys(QueryInput.properties).sort();
    const body = Object.keys(QueryBody.properties).filter((k) => k !== 'format' && k !== 'explain');
    expect(members).toEqual(['topic', ...body].sort());
  });
});

describe('argumentsOf', () => {
  it.each([
    [{ topic: '' }, 'topic'],
    [{ topic: 'orders', since: 3 }, 'since'],
    [{ topic: 'orders', where: { field: 'key', op: 'eq', value: 'a', extra: 1 } }, 'where'],
    [{ topic: 'orders', limit: 5 }, 'limit'],
    [{}, 'arguments'],
  ])('%j is a TG_BAD_REQUEST naming %s', (args, field) => {
    expect(() => argumentsOf(CountInput, args)).toThrow(expect.objectContaining({ code: 'TG_BAD_REQUEST' }));
    try {
      argumentsOf(CountInput, args);
    } catch (e) {
      expect((e as { details: { field: string } }).details.field.split('.')[0]).toBe(field);
    }
  });

  it('says what the tool takes: its members for one it has not, what a member takes when it does not fit', () => {
    expect(() => argumentsOf(CountInput, { topic: 'orders', limit: 5 })).toThrow(
      'limit is not an argument of this tool; it takes topic, where, since, until',
    );
    expect(() => argumentsOf(CountInput, { topic: 'orders', where: { field: 'key' } })).toThrow(
      /^where.*\(where: Filters: a leaf `\{"field", "op", "value"\}`/,
    );
  });

  it('accepts what the schema allows, undefined as no arguments', () => {
    const where = { or: [{ field: 'key', op: 'eq', value: 'a' }, { not: { field: 'key', op: 'is', value: null } }] };
    expect(argumentsOf(CountInput, { topic: 'orders', where })).toEqual({ topic: 'orders', where });
    expect(argumentsOf(Type.Object({}), undefined)).toEqual({});
  });
});
