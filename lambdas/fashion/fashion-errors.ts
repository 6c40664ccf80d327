import { DomainError, type DomainErrorDetails, type ErrorAnswers } from '../errors/domain-error.js';
import { MAX_WATCHERS_PER_JOB } from '../jobs/job-watchers.js';

/**
 * Why a fashion request was refused or failed, in fashion terms: no status codes; the table
 * below says how HTTP answers each kind. A prediction that ran and failed is not an error: it is
 * a `failed` status with `error {name, message}`.
 */
export type FashionErrorKind =
  /** The caller's input is wrong; `field` names what to fix (`model_name`, `inputs.seed`, ...). */
  | 'invalid_request'
  /** The upstream refused the request as invalid (400 BadRequest) after the gateway's checks. */
  | 'upstream_rejected'
  /** No FASHN key on this deployment. */
  | 'not_configured'
  /** The upstream's request-rate limit on the platform's key (RateLimitExceeded). */
  | 'rate_limited'
  /** Too many predictions in flight on the platform's key (ConcurrencyLimitExceeded). */
  | 'concurrency_limited'
  /** The platform's FASHN account has no credits left (OutOfCredits). */
  | 'out_of_credits'
  /** The upstream refused the platform's key (UnauthorizedAccess). */
  | 'upstream_auth'
  /** The upstream knows no prediction with that id (NotFound). */
  | 'not_found'
  /** The upstream failed (500), answered something unreadable, or not at all. */
  | 'upstream_failed'
  /** The prediction already has as many streams watching it as one may have (a replayed subscribe). */
  | 'too_many_watchers';

export interface FashionErrorDetails extends DomainErrorDetails {
  /** The upstream's HTTP status, when there was one. */
  readonly status?: number;
  /** The upstream's `error` name (`OutOfCredits`, ...), when it gave one. */
  readonly upstreamError?: string;
}

/**
 * How HTTP answers each kind (docs/interface.md §4.10 and §7). The upstream's own throttles
 * (RateLimitExceeded, ConcurrencyLimitExceeded) are 429 with Retry-After: waiting helps, so the
 * caller should wait; so is a prediction already watched by its cap of streams (Retry-After: when
 * a slot frees at the latest). A refused platform key or an empty credit balance is the
 * platform's problem, not the caller's: 503, as is a missing FASHN configuration. Without an
 * upstream hint a rate window clears in seconds, a prediction in about 10 s.
 */
export const FASHION_ERROR_ANSWERS: ErrorAnswers<FashionErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  upstream_rejected: {
    status: 400,
    code: 'BAD_REQUEST',
    messagePrefix: 'inputs: refused by the fashion service: ',
    field: 'inputs',
  },
  not_found: { status: 404, code: 'NOT_FOUND', message: 'Fashion prediction not found', field: 'id' },
  rate_limited: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'The fashion service is rate limited',
    retryAfter: { defaultMs: 5_000, inMessage: true },
  },
  concurrency_limited: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Too many fashion predictions are running; retry once some finish',
    retryAfter: { defaultMs: 10_000, inMessage: true },
  },
  not_configured: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service is not configured' },
  out_of_credits: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service is out of credits' },
  upstream_auth: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service credentials were refused' },
  upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Fashion service failed; retry later' },
  too_many_watchers: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: `At most ${MAX_WATCHERS_PER_JOB} streams may watch one prediction at once (poll its status instead)`,
    retryAfter: { defaultMs: 10_000, inMessage: true },
  },
};

export class FashionError extends DomainError<FashionErrorKind, FashionErrorDetails> {
  readonly answers = FASHION_ERROR_ANSWERS;

  constructor(kind: FashionErrorKind, message: string, details: FashionErrorDetails = {}) {
    super(kind, message, details);
    this.name = 'FashionError';
  }
}

export const invalidFashion = (field: string, rule: string): FashionError =>
  new FashionError('invalid_request', `${field}: ${rule}`, { field });
