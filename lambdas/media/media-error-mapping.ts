import type { MediaError } from './media-errors.js';
import { HttpError, retryAfterSeconds } from '../http/errors.js';

/**
 * The one translation of speech and music failures into HTTP (docs/interface.md §7): the caller's input 400
 * naming the field, MiniMax's rate limit 429 with Retry-After, no provider or a failing one 503.
 */
export function mediaHttpError(error: MediaError): HttpError {
  switch (error.kind) {
    case 'invalid_request':
    case 'refused':
      return new HttpError(400, 'BAD_REQUEST', error.message, error.details.field);
    case 'rate_limited': {
      const seconds = String(retryAfterSeconds(error.details.retryAfterMs ?? 1000));
      return new HttpError(429, 'RATE_LIMIT_EXCEEDED', `${error.message}; retry after ${seconds} s`, undefined, {
        'Retry-After': seconds,
      });
    }
    case 'not_configured':
    case 'upstream_failed':
      return new HttpError(503, 'SERVICE_UNAVAILABLE', error.message);
  }
}
