/**
 * Why a fashion request was refused or failed, in fashion terms: no status codes. The HTTP
 * layer (lambdas/fashion/fashion-error-mapping.ts) maps each kind to a status. A prediction that
 * ran and failed is not an error: it is a `failed` status with `error {name, message}`.
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

export interface FashionErrorDetails {
  readonly field?: string;
  readonly retryAfterMs?: number;
  /** The upstream's HTTP status, when there was one. */
  readonly status?: number;
  /** The upstream's `error` name (`OutOfCredits`, ...), when it gave one. */
  readonly upstreamError?: string;
}

export class FashionError extends Error {
  constructor(
    readonly kind: FashionErrorKind,
    message: string,
    readonly details: FashionErrorDetails = {},
  ) {
    super(message);
    this.name = 'FashionError';
  }
}

export const invalidFashion = (field: string, rule: string): FashionError =>
  new FashionError('invalid_request', `${field}: ${rule}`, { field });
