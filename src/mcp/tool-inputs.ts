/**
 * The tools' arguments, one TypeBox schema each, built from the REST API's own schemas (the POST /query body,
 * query/request/read-schema.ts), so a tool takes what the route takes; each is the JSON Schema the tool list shows
 * (jsonSchemaOf) and the check of its arguments (argumentsOf).
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ApiError } from '../core/errors.js';
import { QueryBody } from '../query/request/read-schema.js';

const topic = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'Topic name, as list_topics gives it',
  examples: ['orders'],
});

// A tool answers JSON only, and explains in its own tool: the body's other members as POST /query takes them.
const { format: _format, explain: _explain, ...bodyMembers } = QueryBody.properties;
const { select, where, since, until, decode } = bodyMembers;
const closed = { additionalProperties: false } as const;

export const ListTopicsInput = Type.Object({}, closed);

export const DescribeTopicInput = Type.Object(
  {
    topic,
    presence: Type.Optional(
      Type.Boolean({
        description:
          'true: also sample recent payloads (at most 200 events of since..until, default the last day) and say how ' +
          'often each JSON field is present and its type (needs the infer grant)',
      }),
    ),
    since,
    until,
  },
  closed,
);

export const SampleEventsInput = Type.Object(
  {
    topic,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Events to return, newest first (default 10)' }),
    ),
    select,
    where,
    since,
    until,
    decode,
  },
  closed,
);

export const QueryInput = Type.Object({ topic, ...bodyMembers }, closed);
export type QueryInput = Static<typeof QueryInput>;

export const CountInput = Type.Object({ topic, where, since, until }, closed);

/**
 * The JSON Schema of a tool's arguments, self-contained: a recursive part (the `where` tree) names its definition
 * by `$id`, which a client resolving only local references would not find, so every `$defs` is gathered at the top
 * and referenced as `#/$defs/<name>`.
 */
export function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const names = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$defs') {
        for (const [name, def] of Object.entries(x as Record<string, unknown>)) {
          names.add(name);
          const { $id: _id, ...rest } = def as Record<string, unknown>;
          defs[name] = walk(rest);
        }
      } else if (k !== '$id') out[k] = walk(x);
    }
    return out;
  };
  const top = walk(JSON.parse(JSON.stringify(schema))) as Record<string, unknown>;
  const local = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(local);
    if (v === null || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const entries = Object.entries(o).map(([k, x]) => [
      k,
      k === '$ref' && typeof x === 'string' && names.has(x) ? `#/$defs/${x}` : local(x),
    ]);
    return Object.fromEntries(entries);
  };
  return local(names.size > 0 ? { ...top, $defs: defs } : top) as Record<string, unknown>;
}

interface Described {
  description?: string;
  $ref?: string;
  $defs?: Record<string, Described>;
}

/** A member's description, or its recursive definition's (the `where` tree). */
function descriptionOf(m: Described | undefined): string | undefined {
  return m?.description ?? (m?.$ref !== undefined ? m.$defs?.[m.$ref]?.description : undefined);
}

/**
 * The arguments, checked against the tool's schema: a TG_BAD_REQUEST naming the first member that does not fit,
 * with what that member takes (its description), or the tool's members when it has no such member.
 */
export function argumentsOf<T extends TSchema>(schema: T, args: unknown): Static<T> {
  const value = args ?? {};
  if (Value.Check(schema, value)) return value as Static<T>;
  const [first] = Value.Errors(schema, value);
  const field = first?.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'arguments';
  const member = field.split('.')[0]!;
  const members = (schema as { properties?: Record<string, Described> }).properties ?? {};
  if (member !== 'arguments' && !Object.hasOwn(members, member)) {
    const names = Object.keys(members).join(', ');
    throw new ApiError('TG_BAD_REQUEST', `${member} is not an argument of this tool; it takes ${names}`, { field });
  }
  const takes = descriptionOf(members[member]);
  const message = `${field}: ${first?.message ?? 'is invalid'}${takes ? ` (${member}: ${takes})` : ''}`;
  throw new ApiError('TG_BAD_REQUEST', message, { field });
}
