/**
 * Failures as gRPC statuses (API.md "Flight SQL", errors): the HTTP status of the error catalog mapped to the
 * gRPC code that means the same (gRPC's own HTTP mapping, read the other way), the message starting with the
 * `TG_` code. A bad request is never INTERNAL; only a defect of the gateway is, and its message says no more
 * than the REST body would.
 */
import { Metadata, status as Status, type ServiceError } from '@grpc/grpc-js';
import type { ApiError } from '../core/errors.js';
import { toApiError } from '../trino/trino-errors.js';

/** The gRPC code of an HTTP status of the catalog. */
export function grpcCodeOf(httpStatus: number): Status {
  switch (httpStatus) {
    case 401:
      return Status.UNAUTHENTICATED;
    case 403:
      return Status.PERMISSION_DENIED;
    case 404:
      return Status.NOT_FOUND;
    case 409:
      return Status.FAILED_PRECONDITION;
    // A cap or limit reached (request too large, too expensive, too many): the caller's resource, not a bad argument.
    case 413:
    case 422:
    case 429:
      return Status.RESOURCE_EXHAUSTED;
    case 502:
    case 503:
      return Status.UNAVAILABLE;
    case 504:
    case 408:
      return Status.DEADLINE_EXCEEDED;
    case 501:
      return Status.UNIMPLEMENTED;
    default:
      return httpStatus >= 400 && httpStatus < 500 ? Status.INVALID_ARGUMENT : Status.INTERNAL;
  }
}

/** A call cancelled by its client: what its Trino queries were aborted with. */
export class CallCancelled extends Error {
  constructor() {
    super('the call was cancelled');
  }
}

/** The gRPC error of a failure: its code, `TG_<CODE>: message`, and the code and query id as trailing metadata. */
export function grpcErrorOf(err: unknown): Partial<ServiceError> & { code: Status; apiError: ApiError | null } {
  if (err instanceof CallCancelled)
    return { code: Status.CANCELLED, details: 'TG_CANCELLED: the call was cancelled', apiError: null };
  const e = toApiError(err);
  const metadata = new Metadata();
  metadata.set('x-topicgate-code', e.code);
  if (e.queryId) metadata.set('x-trino-query-id', e.queryId);
  if (e.retryAfterS !== undefined) metadata.set('retry-after', String(e.retryAfterS));
  return { code: grpcCodeOf(e.status), details: `${e.code}: ${e.message}`, metadata, apiError: e };
}

/** An operation the server does not have (DoPut, DoExchange, PollFlightInfo): UNIMPLEMENTED, naming it. */
export function unimplemented(what: string): Partial<ServiceError> {
  return { code: Status.UNIMPLEMENTED, details: `TG_BAD_REQUEST: ${what} is not served (the server is read-only)` };
}
