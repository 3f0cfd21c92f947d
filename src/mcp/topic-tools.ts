/**
 * The catalog tools: the topics the caller may see (as GET /v1/topics), and one topic described (as GET
 * /v1/topics/{topic}) with its settle time, and, when asked, how often each JSON field is present in a sample of
 * its payloads (as GET /v1/topics/{topic}/schema/infer, with the infer grant and the caller's row policies).
 */
import { checkAction } from '../access/access-checks.js';
import type { Static } from 'typebox';
import { settleOf, topicDetail, visibleTopics } from '../entry/topic-detail.js';
import { readScopeOf } from '../entry/read-topic.js';
import { inferRead } from '../read/infer-read.js';
import type { McpCall } from './mcp-call.js';
import type { DescribeTopicInput } from './tool-inputs.js';

/** Events a presence sample reads at most: enough to see the common fields, few enough for a quick answer. */
const PRESENCE_SAMPLE = 200;

export async function listTopics(call: McpCall) {
  return { topics: await visibleTopics(call) };
}

/** The sampled fields: each path, its type and the share of sampled payloads it was present in. */
async function presenceOf(call: McpCall, id: string, since?: string, until?: string) {
  checkAction(call, id, 'infer');
  const found = await inferRead(
    call.services,
    id,
    { since, until, sample: PRESENCE_SAMPLE },
    call.caller,
    (topic) => readScopeOf(call, topic),
    call.trino,
  );
  const fields = found.fields.map((f) => ({ path: f.path, type: f.type, presence: f.presence }));
  return {
    window: found.window,
    sampled: found.sampled,
    json: found.json,
    fields,
    ...(found.payload ? { payload: found.payload } : {}),
  };
}

export async function describeTopic(call: McpCall, input: Static<typeof DescribeTopicInput>) {
  const detail = await topicDetail(call, input.topic);
  const settle = settleOf(call, input.topic);
  if (input.presence !== true) return { ...detail, settle };
  return { ...detail, settle, presence: await presenceOf(call, input.topic, input.since, input.until) };
}
