/** The limit pass: rows per response, within the caller's cap. */
import { ApiError } from '../../core/errors.js';
import type { QueryNode } from '../tree/nodes.js';
import type { LimitPolicy } from '../tree/read-policy.js';

/** Rows per response: the default when unset; more than the maximum is refused, naming the maximum. */
export function applyLimit(q: QueryNode, policy: LimitPolicy, requested?: number): QueryNode {
  const limit = requested ?? policy.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ApiError('TG_BAD_VALUE', `limit must be a positive integer, not ${JSON.stringify(requested)}`, {
      parameter: 'limit',
    });
  }
  if (limit > policy.maxLimit) {
    throw new ApiError(
      'TG_TOO_EXPENSIVE',
      `limit ${limit} is above the maximum ${policy.maxLimit}; page with cursors`,
      {
        parameter: 'limit',
        max: policy.maxLimit,
      },
    );
  }
  return { ...q, limit };
}
