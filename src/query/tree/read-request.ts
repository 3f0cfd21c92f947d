/** A read as the request asked for it (GET parameters or a POST body), its filters already nodes. */
import type { PredicateNode } from './nodes.js';
import type { GroupSpec, OrderSpec, SelectSpec } from './read-specs.js';

/** A read request: what the planner turns into a tree. */
export interface ReadRequest {
  select?: readonly SelectSpec[];
  where: PredicateNode | null;
  since?: string;
  until?: string;
  groupBy?: readonly GroupSpec[];
  order?: readonly OrderSpec[];
  /** Rows per response; `all`: every row of a closed window (bulk reads). */
  limit?: number | 'all';
  /** Bulk reads: time slices read at once (API.md "Bulk reads"). */
  parallel?: number;
  /** `order=none`: no order promised, so slices may interleave (bulk reads only). */
  unordered?: boolean;
  dedupe?: { by?: readonly string[]; keep?: 'latest' | 'earliest' };
}
