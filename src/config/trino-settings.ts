/** The environment settings of the Trino connection, the served tables and the config file. */
import { TRINO_ENCODINGS } from '../core/trino-encodings.js';
import { boolSetting, intSetting, listSetting, textSetting } from './setting-options.js';

export const DEFAULT_TRINO_URL = 'http://127.0.0.1:18080';
const DEMO_SCHEMA = 'demo|kafka_topics';

export const trinoSettings = {
  trinoUrl: textSetting({
    env: 'TOPICGATE_TRINO_URL',
    read: 'url',
    fallback: DEFAULT_TRINO_URL,
    blankIsValue: true,
    shownDefault: `\`${DEFAULT_TRINO_URL}\` (the local Trino)`,
    description: 'Trino coordinator',
  }),
  trinoUser: textSetting({
    env: 'TOPICGATE_TRINO_USER',
    read: 'text',
    fallback: 'topicgate',
    description: 'user sent to Trino',
  }),
  trinoCaFile: textSetting({
    env: 'TOPICGATE_TRINO_CA_FILE',
    read: 'file',
    fallback: '',
    description: "PEM bundle that verifies the certificate of an `https://` Trino (instead of Node's bundled CAs)",
  }),
  trinoPassword: textSetting({
    env: 'TOPICGATE_TRINO_PASSWORD',
    read: 'text',
    fallback: '',
    description: 'password of `TOPICGATE_TRINO_USER` (HTTP basic, `https://` only); never logged',
  }),
  trinoPasswordFile: textSetting({
    env: 'TOPICGATE_TRINO_PASSWORD_FILE',
    read: 'file',
    fallback: '',
    description: 'a file holding the password of `TOPICGATE_TRINO_USER` (alone; trimmed), instead of the password',
  }),
  trinoTokenFile: textSetting({
    env: 'TOPICGATE_TRINO_TOKEN_FILE',
    read: 'file',
    fallback: '',
    description: 'a file holding a bearer token for Trino (`https://` only), read again when it changes',
  }),
  trinoImpersonate: boolSetting({
    env: 'TOPICGATE_TRINO_IMPERSONATE',
    read: 'bool',
    fallback: 'false',
    description:
      "`true`: queries run in Trino as the caller's principal (`X-Trino-User`) while the gateway authenticates as " +
      '`TOPICGATE_TRINO_USER`',
  }),
  trinoEncoding: listSetting({
    env: 'TOPICGATE_TRINO_ENCODING',
    read: 'encodings',
    fallback: TRINO_ENCODINGS.join(','),
    description:
      "encodings of Trino's spooling protocol asked for, in order (`json+zstd`, `json+lz4`, `json`); `none`: direct " +
      'only (Trino answers with direct pages when its spooling is off, and both are read)',
  }),
  trinoSegmentFetch: intSetting({
    env: 'TOPICGATE_TRINO_SEGMENT_FETCH',
    read: 'int',
    fallback: '4',
    minimum: 1,
    maximum: 64,
    description: 'spooled segments fetched at once, ahead of the one being read (1 to 64; each is held until read)',
  }),
  trinoMinWorkers: intSetting({
    env: 'TOPICGATE_TRINO_MIN_WORKERS',
    read: 'int',
    fallback: '0',
    minimum: 0,
    maximum: 100_000,
    description:
      '`/readyz` answers 503 while Trino counts fewer active workers (a coordinator without workers still ' +
      'answers `/v1/info`); each check queries `system.runtime.nodes`; 0: not checked',
  }),
  catalog: textSetting({
    env: 'TOPICGATE_CATALOG',
    read: 'trimmed',
    fallback: 'vast',
    blankIsValue: true,
    description: 'catalog of the topic tables',
  }),
  schemas: listSetting({
    env: 'TOPICGATE_SCHEMAS',
    read: 'list',
    fallback: DEMO_SCHEMA,
    blankIsValue: true,
    description: 'comma-separated schemas to serve, e.g. `kafka-broker|kafka_topics`',
  }),
  configFile: textSetting({
    env: 'TOPICGATE_CONFIG',
    read: 'text',
    fallback: '',
    description: 'YAML or JSON file with per-topic settings (below)',
  }),
  schemaRegistryUrl: textSetting({
    env: 'TOPICGATE_SCHEMA_REGISTRY_URL',
    read: 'text',
    fallback: '',
    description: 'Confluent-compatible Schema Registry of Avro / json-sr topics (overrides `schemaRegistry.url`)',
  }),
};
