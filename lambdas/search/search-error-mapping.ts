import type { SearchError } from './search-errors.js';
import { HttpError, retryAfterSeconds } from '../http/errors.js';

/** The one translation of search failures into HTTP (docs/interface.md §4.4 and §7). */
export function searchHttpError(error: SearchError): HttpError {
  switch (error.kind) {
    case 'invalid_request':
      return new HttpError(400, 'BAD_REQUEST', error.message, error.details.field);
    case 'not_configured':
      return new HttpError(500, 'INTERNAL_ERROR', error.message);
    case 'rate_limited': {
      const seconds = String(retryAfterSeconds(error.details.retryAfterMs ?? 1000));
      return new HttpError(429, 'RATE_LIMIT_EXCEEDED', `${error.message}; retry after ${seconds} s`, undefined, {
        'Retry-After': seconds,
      });
    }
    case 'upstream_failed':
      return new HttpError(503, 'SERVICE_UNAVAILABLE', error.message);
  }
}
