/** Who asks a feature that keeps state for its callers (cursors, loads): a principal and what it may do on a topic. */
import type { Caller, RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { TrinoPort } from '../trino/trino-port.js';

/**
 * The caller, by its principal's `id` (what owns the state: a cursor or a load belongs to the principal that made
 * it, and anyone else but an admin of its topic is told it does not exist). `authorize` refuses a topic the caller
 * may not use the feature on (404 unseen, 403 not granted); `rows` is the caller's row scope on a topic, for every
 * read it plans.
 */
export interface StatefulCaller extends Caller {
  authorize(topic: string): void;
  admin(topic: string): boolean;
  rows(topic: TopicModel): RowScope;
  /**
   * Trino for this caller's request: the feature's statements take its query slots and are cancelled when the
   * client goes away.
   */
  trino: TrinoPort;
}
