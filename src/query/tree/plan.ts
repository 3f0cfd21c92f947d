/** A planned read: the tree Trino runs, where the page starts, and how it is read (slices, bulk, post-decode). */
import type { ColumnNode, OrderNode, PredicateNode, QueryNode, SelectNode } from './nodes.js';
import type { PagePosition } from './page-position.js';

/** The plan of one read, as the planning entry returns it (read-only: exec asks it, never changes it). */
export interface Plan {
  readonly tree: QueryNode;
  /** The page this tree reads; the next page's position is derived from it. */
  readonly position: PagePosition;
  /** Index of the broker time in each output row, when pages are anchored on it. */
  readonly timeIndex: number | null;
  /** The request's own filters (without paging and window), for explain. */
  readonly userWhere: PredicateNode | null;
  /**
   * The caller's row-policy filter as ANDed to the tree (its conjuncts are the tree's own nodes): explain says a
   * policy applies and leaves these out, so it never shows the policy's text.
   */
  readonly rowFilter: PredicateNode | null;
  /** How to read the page in time slices (anchored reads in ascending broker time with a pinned window). */
  readonly slices: SlicePlan | null;
  /** A bulk read (`limit=all`): the window as adjacent slices read `concurrency` at a time. */
  readonly bulk: BulkPlan | null;
  /** What happens after decoding, when the request names decoded Avro fields (passes/post-decode-split.ts). */
  readonly postDecode: PostDecodeStage | null;
}

/** Every row of a closed window, as adjacent whole-millisecond slices [bounds[i], bounds[i + 1]). */
export interface BulkPlan {
  readonly time: ColumnNode;
  readonly bounds: readonly number[];
  /** Slice queries running at once (`parallel`). */
  readonly concurrency: number;
  /** Rows come in the query's order (slices written one after another); false: slices may interleave. */
  readonly ordered: boolean;
}

/**
 * A page read as adjacent time slices [from, from + width), [.., .. + 2 * width), ... until it has its rows or the
 * window ends (read/sliced-result.ts). Each slice is a range the storage evaluates, so a page reads about the
 * rows it returns, wherever it sits in the window.
 */
export interface SlicePlan {
  readonly time: ColumnNode;
  /** Start of the first slice (the anchor's millisecond, or since), epoch ms. */
  readonly fromMs: number;
  /** End of the window (exclusive), epoch ms. */
  readonly hi: number;
  /** Width of the first slice, ms. */
  readonly widthMs: number;
  /** How much wider each next slice is than the one before. */
  readonly growth: number;
}

/**
 * The post-decode stage: what is evaluated on decoded Avro fields once Trino's rows are decoded (read/post-decode/).
 * `stream` keeps Trino's order and filters; `gather` sorts or aggregates every row of the window first.
 */
export interface PostDecodeStage {
  readonly mode: 'stream' | 'gather';
  /** The filters naming a decoded field (with what they are ORed with), evaluated after decoding. */
  readonly where: PredicateNode | null;
  /** What the response shows: the request's select items. */
  readonly select: readonly SelectNode[];
  readonly groupBy: readonly string[];
  /** gather: the request's order (by output names); stream: rows come in Trino's order. */
  readonly order: readonly OrderNode[];
  /** Rows per response (Infinity: limit=all). */
  readonly limit: number;
  /** gather: rows of the sorted or aggregated result before this page. */
  readonly offset: number;
  /** Columns the stage reads that are neither table columns nor decoded fields, selected by Trino under `as`. */
  readonly extra: readonly { column: ColumnNode; as: string }[];
  /** The most rows (sorting) or groups (aggregating) held for one response. */
  readonly maxRows: number;
  /**
   * gather: one row per key, kept after `where` (the first or the last in Trino's total order), before sorting or
   * grouping; null when Trino dedupes (no filter is evaluated after decoding).
   */
  readonly dedupe: { readonly by: readonly ColumnNode[]; readonly keep: 'latest' | 'earliest' } | null;
}
