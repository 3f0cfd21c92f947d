/**
 * Schema inference as a read: the planner chooses the sampled window and size (with their caps), Trino returns
 * the payloads, the inferrer proposes typed fields.
 */
import type { Config } from '../config/config.js';
import type { RegistryPort } from '../blob/avro/schema-registry.js';
import type { TopicCatalog } from './topic-catalog.js';
import { SchemaInferrer } from '../blob/json/schema-inferrer.js';
import { topicModel } from './topic-catalog.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { plan } from '../query/planner.js';
import { readPolicy } from '../query/policy-from-settings.js';
import type { Caller } from '../query/tree/read-policy.js';
import { FrameSampler } from '../blob/avro/sample-frames.js';
import type { TrinoPort } from '../trino/trino-port.js';
import { rowValues } from '../core/text-rows.js';

export interface InferQuery {
  since?: string;
  until?: string;
  sample?: number;
}

/** `rows`: the caller's row scope on the topic (the sample is drawn from its rows only). */
/** What inference reads with: the settings, the live catalog and the Schema Registry (framed payloads). */
export interface InferDeps {
  config: Config;
  catalog: TopicCatalog;
  registry?: RegistryPort;
}

export async function inferRead(
  deps: InferDeps,
  topicId: string,
  query: InferQuery,
  caller: Caller | undefined,
  rows: (topic: TopicModel) => RowScope,
  /** The request's port: the sample query takes one of the caller's query slots and ends with the request. */
  trino: TrinoPort,
) {
  const { config, catalog } = deps;
  const table = await catalog.get(topicId);
  const topic = topicModel(table, config);
  const planned = plan({ kind: 'sample', topic, ...query, caller }, readPolicy(config, topic.id, rows(topic)));
  const sql = planned.sql({ extraRow: false });
  const inferrer = new SchemaInferrer();
  const payload = config.topics[topic.id]?.value;
  const frames =
    payload && payload.format !== 'raw' ? new FrameSampler(topic.id, { ...payload, format: payload.format }) : null;
  const result = await trino.query(sql, { ...planned.run, timeoutMs: config.queryTimeoutMs });
  for await (const batch of result.batches) {
    for (const row of rowValues(batch)) {
      const value = row[0] === null ? null : Buffer.from(row[0] as string, 'base64');
      if (!frames) inferrer.add(value);
      else {
        // Framed values: counted by schema id; only JSON (json-sr, or unframed) goes on to the inferrer.
        const seen = frames.add(value);
        if (seen) inferrer.add(seen.json);
        else inferrer.sampled++; // an Avro event: sampled, its fields are the registry's schema
      }
    }
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    topic: topic.id,
    window: { since: iso(planned.position.lo!), until: iso(planned.position.hi!) },
    ...inferrer.result(table.columns.map((c) => c.name)),
    ...(frames ? { payload: await frames.result(deps.registry) } : {}),
  };
}
