/** Schema inference for blob expansion (API.md "Blob expansion"): the sampled window and what was found. */
import { SampledFramesSchema } from '../blob/avro/sample-frames.js';
import { Type, type Static } from 'typebox';

export const InferQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      description: 'Start of the sampled window (default: until minus 1 day)',
      examples: ['2026-11-01T00:00:00Z'],
    }),
  ),
  until: Type.Optional(
    Type.String({ description: 'End of the sampled window (default: now)', examples: ['2026-11-02T00:00:00Z'] }),
  ),
  sample: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Events to sample (default 1000; capped by TOPICGATE_INFER_MAX_SAMPLE)' }),
  ),
});
export type InferQuery = Static<typeof InferQuery>;

export const InferResult = Type.Object({
  payload: Type.Optional(SampledFramesSchema),
  topic: Type.String(),
  window: Type.Object({ since: Type.String(), until: Type.String() }),
  sampled: Type.Integer(),
  json: Type.Integer({ description: 'Sampled payloads that were JSON objects' }),
  malformed: Type.Object({ notUtf8: Type.Integer(), notJson: Type.Integer(), notObject: Type.Integer() }),
  fields: Type.Array(
    Type.Object({
      name: Type.String(),
      path: Type.String(),
      type: Type.String({ description: 'Fits every sampled value (widened on conflicts)' }),
      proposed: Type.String({
        description:
          'Type in the proposed expand block (a minority under 2% of another type does not widen it: those values read as NULL)',
      }),
      types: Type.Record(Type.String(), Type.Integer()),
      seen: Type.Integer(),
      presence: Type.Number(),
    }),
  ),
  expand: Type.Record(Type.String(), Type.Object({ path: Type.String(), type: Type.String() })),
  arrow_schema: Type.Array(
    Type.Object({
      name: Type.String(),
      field: Type.Object({ column_type: Type.String(), value_type: Type.Optional(Type.String()) }),
    }),
  ),
});
export type InferResult = Static<typeof InferResult>;
