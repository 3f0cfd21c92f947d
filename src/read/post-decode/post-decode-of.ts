/** The post-decode stage over a decoded result, as a page reads it: its run, where broker time is, what it shows. */
import type { ResultStream } from '../../core/result-stream.js';
import { isDecoded } from '../../query/request/decoded-column.js';
import { TIME_COLUMN } from '../../query/tree/nodes.js';
import type { Plan, PostDecodeStage } from '../../query/tree/plan.js';
import { flattenDecoded, postDecodeRun, type PostDecodeRun } from './post-decode-stage.js';
import type { MemoryAccount } from '../gateway-memory.js';

/** The stage's run over a page's decoded rows. */
export interface PagePostDecode {
  run: PostDecodeRun;
  /** The broker time's index in the decoded rows (anchored pages), or null. */
  timeIndex: number | null;
  /** The response's rows: the stage's projection, decoded records flattened when the format asks for it. */
  project(view: ResultStream, flatten: boolean): ResultStream;
}

/**
 * The post-decode stage over `decoded` (the payloads decoded in place) for a page of `plan`; a sort or aggregation
 * holds its rows through `memory`, the response's account.
 */
export function postDecodeOf(
  stage: PostDecodeStage,
  decoded: ResultStream,
  plan: Plan,
  memory: MemoryAccount,
): PagePostDecode {
  const payloadColumns = new Set(
    ['key', 'value'].filter((n) => decoded.columns.some((c) => c.name === `${n}_schema_id`)),
  );
  const run = postDecodeRun(stage, decoded, payloadColumns, memory);
  const timeIndex = plan.timeIndex === null ? null : decoded.columns.findIndex((c) => c.name === TIME_COLUMN);
  // The outputs that come from decoding: a format that flattens records flattens these.
  const decodedOutputs = new Set(
    stage.select.flatMap((s) =>
      s.kind === 'select-column' && (isDecoded(s.column) || payloadColumns.has(s.column.name)) ? [s.as] : [],
    ),
  );
  return {
    run,
    timeIndex,
    project: (view, flatten) => (flatten ? flattenDecoded(run.project(view), decodedOutputs) : run.project(view)),
  };
}
