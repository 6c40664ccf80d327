import type { ProviderId } from '../../catalog/model-catalog.js';
import {
  bodySnippet,
  retryAfterFromHeaders,
  UpstreamError,
  type FailureKind,
  type UpstreamFailure,
  type HeaderReader,
} from '../upstream-failure.js';

/**
 * Anthropic's error classification: the body's `error.type` decides when the body is
 * Anthropic's own; the HTTP status decides when it is not (a proxy's HTML page, an empty body).
 */

const BY_TYPE: Readonly<Record<string, FailureKind>> = {
  invalid_request_error: 'bad_request',
  not_found_error: 'bad_request',
  request_too_large: 'bad_request',
  authentication_error: 'auth',
  permission_error: 'auth',
  billing_error: 'quota',
  rate_limit_error: 'rate_limit',
  api_error: 'overload',
  overloaded_error: 'overload',
  // A server-side gateway timeout, not the gateway's own deadline (that one is `timeout`).
  timeout_error: 'overload',
};

/** Spend caps arrive as 400 or 429 (docs/upstreams.md §2.7, §9): not transient, so quota. */
const SPEND_LIMIT_CODES: ReadonlySet<string> = new Set(['enforced_spend_limit_reached']);
const SPEND_LIMIT_MESSAGE = /credit balance is too low|spend(ing)? limit/i;

function byStatus(status: number): FailureKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'quota';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'overload';
  return 'bad_request';
}

interface AnthropicErrorBody {
  type?: unknown;
  message?: unknown;
  details?: { error_code?: unknown } | null;
}

export function classifyAnthropicError(
  status: number,
  headers: HeaderReader,
  body: string,
  provider: ProviderId,
): UpstreamFailure {
  const error = errorObject(body);
  const code = typeof error?.type === 'string' ? error.type : undefined;
  const text = typeof error?.message === 'string' ? error.message : bodySnippet(body);
  const failure: { -readonly [K in keyof UpstreamFailure]: UpstreamFailure[K] } = {
    kind: kindOf(code, error, status),
    status,
    message: `${provider} answered ${status}${text ? `: ${text}` : ''}`,
  };
  if (code) failure.providerCode = code;
  const retryAfterMs = retryAfterFromHeaders(headers);
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}

/** An `error` event inside a 200 stream (or a 200 body of type `error`). */
export function inBandError(payload: unknown): UpstreamError {
  const error = (payload as { error?: AnthropicErrorBody } | null)?.error;
  const code = typeof error?.type === 'string' ? error.type : undefined;
  const message = typeof error?.message === 'string' ? error.message : 'error event';
  return new UpstreamError({
    kind: kindOf(code, error, undefined),
    message: `anthropic stream error: ${message}`,
    ...(code ? { providerCode: code } : {}),
  });
}

function kindOf(
  code: string | undefined,
  error: AnthropicErrorBody | undefined,
  status: number | undefined,
): FailureKind {
  const detail = error?.details?.error_code;
  if (typeof detail === 'string' && SPEND_LIMIT_CODES.has(detail)) return 'quota';
  if (
    (code === 'invalid_request_error' || code === 'rate_limit_error') &&
    typeof error?.message === 'string' &&
    SPEND_LIMIT_MESSAGE.test(error.message)
  ) {
    return 'quota';
  }
  const known = code === undefined ? undefined : BY_TYPE[code];
  if (known) return known;
  return status === undefined ? 'overload' : byStatus(status);
}

function errorObject(body: string): AnthropicErrorBody | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown } | null;
    const error = parsed?.error;
    return error !== null && typeof error === 'object' ? (error as AnthropicErrorBody) : undefined;
  } catch {
    return undefined;
  }
}
