import type { ArenaError } from './arena-errors.js';
import { HttpError } from '../http/errors.js';

/** The one translation of the arena's refusals into HTTP (docs/interface.md §7). */
export function arenaHttpError(error: ArenaError): HttpError {
  switch (error.kind) {
    case 'invalid_request':
      return new HttpError(400, 'BAD_REQUEST', error.message, error.field);
    case 'streaming_required':
      return new HttpError(400, 'STREAMING_REQUIRED', error.message, error.field);
    case 'no_answer':
      return error.causes.length > 0 && error.causes.every((code) => code === 'upstream_rate_limited')
        ? new HttpError(429, 'RATE_LIMIT_EXCEEDED', error.message)
        : new HttpError(503, 'SERVICE_UNAVAILABLE', error.message);
  }
}
