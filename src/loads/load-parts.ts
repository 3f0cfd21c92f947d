/** A load's definition, who asks the load service, and what the service is built from. */
import type { Config } from '../config/config.js';
import type { CursorCaller } from '../cursors/cursor-parts.js';
import type { Where } from '../query/request/where-schema.js';
import type { TopicCatalog } from '../read/topic-catalog.js';
import type { LoadRun } from './load-store.js';

/** What `PUT /v1/loads/{name}` defines (API.md "Loads run by Trino"), stored as canonical JSON. */
export interface LoadDefinition {
  topic: string;
  select?: string[];
  where?: Where;
  /** `<catalog>.<schema>.<table>`. */
  target: string;
  /** `earliest` or an ISO instant: where the first window starts. */
  start: string;
  /** Events newer than now minus this are not loaded yet. */
  settle: string;
}

/**
 * Who is asking, in the shape of a cursor's caller. A load belongs to the principal that defined it (its id):
 * anyone else, but an admin of its topic, is told it does not exist, and only its owner runs it (its runs read with
 * the owner's row policies). `authorize` refuses a topic the caller may not load (404 unseen, 403 not granted);
 * `trino`'s statements take the caller's query slots.
 */
export type LoadCaller = CursorCaller;

/** A step of a run, told to the run's observer as it is passed. */
export type RunStep = 'deleted' | 'inserted' | 'counted';

/** What the load service reads besides its store. */
export interface LoadServiceParts {
  catalog: Pick<TopicCatalog, 'get'>;
  config: Config;
  /**
   * Told after each step of a run, before the next one starts; what it throws fails the run there (the fault
   * tests stop runs at each step this way).
   */
  observe?: (step: RunStep, run: LoadRun) => Promise<void>;
}
