import { JobNotFoundError } from '../jobs/job-lookup.js';
import { MAX_WATCHERS_PER_JOB } from '../jobs/job-watchers.js';
import { FashionError, type FashionErrorKind } from './fashion-errors.js';
import { IdempotencyError, IDEMPOTENCY_HEADER, type IdempotencyErrorKind } from '../store/idempotency.js';
import { HttpError, retryAfterSeconds } from '../http/errors.js';

/**
 * The one translation of fashion failures into HTTP (docs/interface.md §4.10 and §7). The upstream's own
 * throttles (RateLimitExceeded, ConcurrencyLimitExceeded) are 429 with Retry-After: waiting
 * helps, so the caller should wait; so is a prediction already watched by its cap of streams
 * (Retry-After: when a slot frees at the latest). A refused platform key or an empty credit
 * balance is the platform's problem, not the caller's: 503, as is a missing FASHN configuration.
 */

/** When the upstream gave no hint: a rate window clears in seconds, a prediction in ~10 s. */
const DEFAULT_RETRY_MS: Readonly<Partial<Record<FashionErrorKind, number>>> = {
  rate_limited: 5_000,
  concurrency_limited: 10_000,
  too_many_watchers: 10_000,
};

interface Shape {
  readonly status: number;
  readonly code: string;
  readonly message?: string;
  /** The request field at fault, where the kind says which. */
  readonly field?: string;
}

const SHAPES: Readonly<Record<FashionErrorKind, Shape>> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  upstream_rejected: { status: 400, code: 'BAD_REQUEST' },
  not_found: { status: 404, code: 'NOT_FOUND', message: 'Fashion prediction not found', field: 'id' },
  rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', message: 'The fashion service is rate limited' },
  concurrency_limited: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Too many fashion predictions are running; retry once some finish',
  },
  not_configured: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service is not configured' },
  out_of_credits: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service is out of credits' },
  upstream_auth: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service credentials were refused' },
  upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service failed; retry later' },
  too_many_watchers: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: `At most ${MAX_WATCHERS_PER_JOB} streams may watch one prediction at once (poll its status instead)`,
  },
};

export function fashionHttpError(error: FashionError): HttpError {
  const shape = SHAPES[error.kind];
  if (error.kind === 'invalid_request') return new HttpError(400, shape.code, error.message, error.details.field);
  if (error.kind === 'upstream_rejected') {
    return new HttpError(400, shape.code, `inputs: refused by the fashion service: ${error.message}`, 'inputs');
  }
  const retryMs = DEFAULT_RETRY_MS[error.kind];
  if (retryMs === undefined)
    return new HttpError(shape.status, shape.code, shape.message ?? error.message, shape.field);
  const seconds = String(retryAfterSeconds(error.details.retryAfterMs ?? retryMs));
  return new HttpError(shape.status, shape.code, `${shape.message}; retry after ${seconds} s`, undefined, {
    'Retry-After': seconds,
  });
}

const IDEMPOTENCY_SHAPES: Readonly<Record<IdempotencyErrorKind, Shape & { headers?: Record<string, string> }>> = {
  invalid_key: { status: 400, code: 'BAD_REQUEST' },
  in_flight: { status: 409, code: 'CONFLICT', headers: { 'Retry-After': '1' } },
  mismatch: { status: 422, code: 'IDEMPOTENCY_KEY_REUSED' },
};

export function idempotencyHttpError(error: IdempotencyError): HttpError {
  const shape = IDEMPOTENCY_SHAPES[error.kind];
  return new HttpError(shape.status, shape.code, error.message, IDEMPOTENCY_HEADER, shape.headers);
}

/** Domain errors as HttpErrors; anything else passes unchanged (a logged 500). */
export function toFashionHttpError(error: unknown): unknown {
  if (error instanceof FashionError) return fashionHttpError(error);
  if (error instanceof IdempotencyError) return idempotencyHttpError(error);
  if (error instanceof JobNotFoundError) return fashionHttpError(new FashionError('not_found', error.message));
  return error;
}
