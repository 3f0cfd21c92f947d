/** Who asks the cursor service (the caller, with its grants and row scope) and what it is built from. */
import type { Config } from '../config/config.js';
import type { RegistryPort } from '../blob/avro/schema-registry.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { Caller, RowScope } from '../query/tree/read-policy.js';
import type { TopicCatalog } from '../read/topic-catalog.js';
import type { TrinoPort } from '../trino/trino-port.js';

/**
 * Who is asking (cursor ownership, by its principal's `id`). A cursor belongs to the principal that created it:
 * anyone else, but an admin of its topic, is told it does not exist. `authorize` refuses a topic the caller may not
 * use cursors on (404 unseen, 403 not granted); `rows` is the caller's row scope on a topic, for every batch and lag
 * it plans.
 */
export interface CursorCaller extends Caller {
  authorize(topic: string): void;
  admin(topic: string): boolean;
  rows(topic: TopicModel): RowScope;
  /**
   * Trino for this caller's request: batch summaries and lag counts take its query slots and are cancelled when
   * the client goes away.
   */
  trino: TrinoPort;
}

/** What the cursor service reads besides its store and signing keys. */
export interface CursorServiceParts {
  /** The served topics: a cursor's topic is looked up here. */
  catalog: Pick<TopicCatalog, 'get'>;
  /** Per-topic settings, the query time limit and the history's retention. */
  config: Config;
  /** The Schema Registry, for topics whose key is Avro (a filter on the key compares framed bytes). */
  registry?: RegistryPort | undefined;
}
