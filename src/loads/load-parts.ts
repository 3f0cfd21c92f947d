/**
 * A load's definition, and what the load service is built from. Its caller is access/stateful-caller.ts: a load
 * belongs to the principal that defined it, and only its owner runs it (its runs read with the owner's row
 * policies).
 */
import type { Config } from '../config/config.js';
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
