/**
 * Schema inference on a topic whose value is Confluent-framed: the schema ids found in the sample, how
 * many events each, and which version of the subject each id is; unframed events counted. A json-sr value is
 * handed to the JSON inferrer without its frame, so inference proposes its fields as for plain JSON.
 */
import { Type, type Static } from 'typebox';
import { frameIdOf, subjectOf } from './payload-decoder.js';
import type { PayloadSettings } from '../../config/registry-config.js';
import type { RegistryPort } from './schema-registry.js';

export const SampledFramesSchema = Type.Object({
  format: Type.Union([Type.Literal('avro'), Type.Literal('json-sr')]),
  subject: Type.String(),
  schemaIds: Type.Array(
    Type.Object({
      id: Type.Integer(),
      events: Type.Integer(),
      version: Type.Union([Type.Integer(), Type.Null()], {
        description: "The subject's version with this id; null: none",
      }),
    }),
  ),
  unframed: Type.Integer({ description: 'Sampled values without a Confluent frame' }),
});
export type SampledFrames = Static<typeof SampledFramesSchema>;

export class FrameSampler {
  private readonly ids = new Map<number, number>();
  private unframed = 0;

  constructor(
    private readonly topic: string,
    private readonly settings: PayloadSettings & { format: 'avro' | 'json-sr' },
  ) {}

  /** Counts the value's frame; returns what the JSON inferrer should see (json-sr: the JSON; avro: nothing). */
  add(value: Buffer | null): { json: Buffer | null } | null {
    if (value === null) return { json: null };
    const id = frameIdOf(value);
    if (id === null) {
      this.unframed++;
      return { json: value };
    }
    this.ids.set(id, (this.ids.get(id) ?? 0) + 1);
    return this.settings.format === 'json-sr' ? { json: value.subarray(5) } : null;
  }

  async result(registry: RegistryPort | undefined): Promise<SampledFrames> {
    const subject = subjectOf(this.topic, 'value', this.settings);
    const versionOf = new Map<number, number>();
    if (registry) {
      const versions = await registry.versions(subject);
      for (const v of await Promise.all(versions.map((n) => registry.version(subject, n)))) {
        if (v) versionOf.set(v.id, v.version);
      }
    }
    return {
      format: this.settings.format,
      subject,
      schemaIds: [...this.ids]
        .sort((a, b) => a[0] - b[0])
        .map(([id, events]) => ({ id, events, version: versionOf.get(id) ?? null })),
      unframed: this.unframed,
    };
  }
}
