/**
 * What went wrong with an upstream call, classified once by the provider's adapter so the
 * router decides retries and fallbacks from data, never from provider names.
 */
export type FailureKind =
  /** Bad or missing provider credential: surfaced, never retried on the same provider. */
  | 'auth'
  /** Transient throttling: retry after the hint, or fall back. */
  | 'rate_limit'
  /** Billing or quota exhausted: not transient for this provider, but another may serve. */
  | 'quota'
  /** Overloaded or server-side failure: retry with backoff, or fall back. */
  | 'overload'
  /** The caller's request is wrong (400, 404 model, 413, 422): never retried. */
  | 'bad_request'
  /** The content was refused by the provider's policy. */
  | 'content_filter'
  | 'timeout'
  | 'connection'
  /** The upstream answered something the adapter could not read. */
  | 'malformed';

export interface UpstreamFailure {
  readonly kind: FailureKind;
  /** The upstream's HTTP status, when there was one. */
  readonly status?: number;
  readonly message: string;
  /** The provider's own code (e.g. `insufficient_quota`, `overloaded_error`). */
  readonly providerCode?: string;
  /** From retry-after, retry-after-ms or a body hint, when the upstream gave one. */
  readonly retryAfterMs?: number;
}

const TRANSIENT: ReadonlySet<FailureKind> = new Set(['rate_limit', 'overload', 'timeout', 'connection', 'malformed']);

/** Worth another attempt on the same target (with backoff). */
export const isRetryable = (failure: UpstreamFailure): boolean => TRANSIENT.has(failure.kind);

/** Worth trying the next target: anything but the caller's own mistake. */
export const allowsFallback = (failure: UpstreamFailure): boolean =>
  failure.kind !== 'bad_request' && failure.kind !== 'content_filter';

/** The part of `Headers` the failure classification reads (cheaper to build than `Headers`). */
export interface HeaderReader {
  get(name: string): string | null;
  has(name: string): boolean;
}

export class UpstreamError extends Error {
  constructor(readonly failure: UpstreamFailure) {
    super(failure.message);
    this.name = 'UpstreamError';
  }
}

/**
 * `retry-after-ms`, then `retry-after` (seconds or an HTTP date); hints beyond a minute are
 * ignored, as the OpenAI SDK does, so one upstream cannot stall a request indefinitely.
 */
export function retryAfterFromHeaders(headers: HeaderReader, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return capHint(ms);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return capHint(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : capHint(Math.max(0, date - now));
}

const MAX_HINT_MS = 60_000;
const capHint = (ms: number): number | undefined => (ms <= MAX_HINT_MS ? ms : undefined);

/** A failure with only the optional details that are known (no `undefined`-valued keys). */
export function upstreamFailure(
  kind: FailureKind,
  message: string,
  details: { status?: number; providerCode?: string; retryAfterMs?: number } = {},
): UpstreamFailure {
  const failure: { -readonly [K in keyof UpstreamFailure]: UpstreamFailure[K] } = { kind, message };
  if (details.status !== undefined) failure.status = details.status;
  if (details.providerCode !== undefined) failure.providerCode = details.providerCode;
  if (details.retryAfterMs !== undefined) failure.retryAfterMs = details.retryAfterMs;
  return failure;
}

/** A proxy page or plain text: enough of it to recognise in a log, no markup. */
export function bodySnippet(body: string): string {
  return body
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}
