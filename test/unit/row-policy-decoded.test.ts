/**
 * The start-up check of a row policy on a decoded Avro field (access/policy-check.ts), without services: the topic is
 * checked with the decoded fields its reader schema gives (a field it has passes, one it lacks is named), and a
 * registry that does not answer leaves the topic's policies to the reads, with one warning naming the topic.
 */
import { describe, expect, it } from 'vitest';
import { decodedForPolicies, rowPolicyProblems } from '../../src/access/policy-check.js';
import { RowPolicies } from '../../src/access/row-policy.js';
import type { RegistryPort } from '../../src/blob/avro/schema-registry.js';
import type { TableInfo } from '../../src/query/tree/topic-model.js';

const PAYMENT = {
  type: 'record',
  name: 'Payment',
  fields: [
    { name: 'status', type: 'string' },
    {
      name: 'customer',
      type: { type: 'record', name: 'Customer', fields: [{ name: 'country', type: 'string' }] },
    },
  ],
};
const registry = (answer: () => Promise<unknown>): RegistryPort => ({
  byId: async () => null,
  isKnown: () => false,
  version: answer as RegistryPort['version'],
  versions: async () => [1],
});
const GOOD = registry(async () => ({
  id: 1,
  schemaType: 'AVRO',
  schema: JSON.stringify(PAYMENT),
  subject: 'payments_avro-value',
  version: 1,
}));
const DOWN = registry(async () => {
  throw new Error('connect ECONNREFUSED 127.0.0.1:18081');
});

const TOPICS = { payments_avro: { value: { format: 'avro' as const } } };
const TABLES = new Map<string, TableInfo>([
  [
    'payments_avro',
    {
      id: 'payments_avro',
      schema: 's',
      table: 'payments_avro',
      kind: 'topic',
      columns: [
        { name: 'key', type: 'varbinary' },
        { name: 'value', type: 'varbinary' },
        { name: 'timestamp_broker', type: 'timestamp(3)' },
      ],
    },
  ],
]);
const policies = (filter: string) =>
  new RowPolicies({ payments_avro: [{ roles: ['tenant'], filter }] }, { topics: TOPICS });
const config = { catalog: 'vast', topics: TOPICS };

async function problems(filter: string, reg: RegistryPort) {
  const p = policies(filter);
  const { decoded, unchecked, warnings } = await decodedForPolicies(p, config, reg);
  return { problems: rowPolicyProblems(p, TABLES, config, decoded, unchecked), warnings };
}

describe('row policies on decoded Avro fields at start-up', () => {
  it('a field of the reader schema passes, with or without a claim', async () => {
    expect(await problems('value.customer.country=eq.{claims.country}', GOOD)).toEqual({ problems: [], warnings: [] });
    expect(await problems('value.status=eq.AUTHORIZED', GOOD)).toEqual({ problems: [], warnings: [] });
  });

  it('a field the reader schema lacks is named', async () => {
    const { problems: found } = await problems('value.customer.city=eq.{claims.city}', GOOD);
    expect(found).toEqual([
      'rowPolicies.payments_avro[0].filter: value.customer.city: the decoded value.customer has no field "city" (fields: country)',
    ]);
  });

  it('without the decoded fields, the check refuses the policy (as start-up did before reading the registry)', () => {
    expect(rowPolicyProblems(policies('value.status=eq.AUTHORIZED'), TABLES, config)).toHaveLength(1);
  });

  it('a registry that does not answer: not checked at start-up, one warning naming the topic', async () => {
    const { problems: found, warnings } = await problems('value.customer.city=eq.{claims.city}', DOWN);
    expect(found).toEqual([]);
    expect(warnings).toEqual([
      'rowPolicies.payments_avro: not checked at start-up, the Schema Registry did not give its schemas (connect ECONNREFUSED 127.0.0.1:18081); a read its policies do not fit is refused (403)',
    ]);
  });
});
