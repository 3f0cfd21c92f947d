/** Content negotiation for reads: `format=` or the `Accept` header (encode/encoder-registry.ts has the rule). */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { FORMATS, MEDIA_TYPES, negotiateMediaType, type MediaType } from '../encode/encoder-registry.js';

/** The media type to answer `request` with; none acceptable is a 406 naming the parameter or header. */
export function mediaTypeOf(request: FastifyRequest, format: string | undefined): MediaType {
  const media = negotiateMediaType(format, request.headers.accept);
  if (!media) {
    throw new ApiError(
      'TG_NOT_ACCEPTABLE',
      format !== undefined
        ? `format=${JSON.stringify(format)} is not one of ${FORMATS.join(', ')}`
        : `Accept: ${JSON.stringify(request.headers.accept)} names no media type this API produces (${MEDIA_TYPES.join(', ')})`,
      { parameter: format !== undefined ? 'format' : 'Accept' },
    );
  }
  return media;
}
