/** What the cursor service is built from (its caller is access/stateful-caller.ts). */
import type { Config } from '../config/config.js';
import type { RegistryPort } from '../blob/avro/schema-registry.js';
import type { TopicCatalog } from '../read/topic-catalog.js';

/** What the cursor service reads besides its store and signing keys. */
export interface CursorServiceParts {
  /** The served topics: a cursor's topic is looked up here. */
  catalog: Pick<TopicCatalog, 'get'>;
  /** Per-topic settings, the query time limit and the history's retention. */
  config: Config;
  /** The Schema Registry, for topics whose key is Avro (a filter on the key compares framed bytes). */
  registry?: RegistryPort | undefined;
}
