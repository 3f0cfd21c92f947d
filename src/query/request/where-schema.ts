/** The JSON filter tree: the `where` of a POST query and the `filter` of a cursor (query/request/parse-read-request.ts reads it). */
import { Type, type Static } from 'typebox';

const WhereLeaf = Type.Object(
  {
    field: Type.String({
      description: 'A column, expanded field or JSON arrow path (`value->>status`)',
      examples: ['key'],
    }),
    // Not an enum: an unknown operator is a TG_BAD_OPERATOR that names the operators, not a schema failure.
    op: Type.String({
      description:
        'eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov; `eq(any)`, `like(all)`, ... take a list',
      examples: ['eq'],
    }),
    value: Type.Optional(
      Type.Unknown({
        description:
          'The value: a list for `in`, `cs`, `cd`, `ov` and `op(any|all)`; null, not_null, true, false or unknown for `is`; varbinary values as in GET filters',
      }),
    ),
  },
  { additionalProperties: false, description: 'One filter: `{"field", "op", "value"}`' },
);

export const Where = Type.Cyclic(
  {
    Where: Type.Union(
      [
        Type.Object({ and: Type.Array(Type.Ref('Where'), { maxItems: 100 }) }, { additionalProperties: false }),
        Type.Object({ or: Type.Array(Type.Ref('Where'), { maxItems: 100 }) }, { additionalProperties: false }),
        Type.Object({ not: Type.Ref('Where') }, { additionalProperties: false }),
        WhereLeaf,
      ],
      {
        description:
          'Filters: a leaf `{"field", "op", "value"}`, or `{"and": [...]}`, `{"or": [...]}`, `{"not": {...}}`',
      },
    ),
  },
  'Where',
);
export type Where = Static<typeof Where>;
