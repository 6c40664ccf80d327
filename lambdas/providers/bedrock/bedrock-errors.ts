import type { ProviderId } from '../../catalog/model-catalog.js';
import {
  bodySnippet,
  retryAfterFromHeaders,
  upstreamFailure,
  UpstreamError,
  type FailureKind,
  type HeaderReader,
  type UpstreamFailure,
} from '../upstream-failure.js';

/**
 * Bedrock Runtime's errors (docs/upstreams.md, "Amazon Bedrock"): a REST-JSON service, so the
 * error's name travels in the `x-amzn-ErrorType` header (`ThrottlingException:http://…`), its
 * text in the body's `message` (or `Message`). The name decides when present; the status when
 * it is not (a proxy's page, an empty body). Inside a ConverseStream the same names arrive as
 * exception frames (`:exception-type`).
 */

const BY_NAME: Readonly<Record<string, FailureKind>> = {
  ValidationException: 'bad_request',
  ResourceNotFoundException: 'bad_request',
  // Model access not enabled in the account, or the role lacks bedrock:InvokeModel: the
  // platform's configuration, not the caller's request, so another provider may serve.
  AccessDeniedException: 'auth',
  UnrecognizedClientException: 'auth',
  InvalidSignatureException: 'auth',
  ExpiredTokenException: 'auth',
  // The account's quota of a model (tokens or requests per minute): transient.
  ThrottlingException: 'rate_limit',
  // The account's service quota itself (e.g. of provisioned throughput): not transient here.
  ServiceQuotaExceededException: 'quota',
  ModelNotReadyException: 'overload',
  ServiceUnavailableException: 'overload',
  InternalServerException: 'overload',
  ModelStreamErrorException: 'overload',
  // Bedrock's own deadline for the model, not the gateway's (that one is `timeout`).
  ModelTimeoutException: 'overload',
  // The model answered something Bedrock could not read: retrying may draw a good answer.
  ModelErrorException: 'overload',
};

function byStatus(status: number): FailureKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'overload';
  return 'bad_request';
}

/** `ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/` → `ThrottlingException`. */
function errorName(raw: string | null | undefined): string | undefined {
  const name = raw?.split(':')[0]?.trim();
  return name ? name : undefined;
}

function messageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; Message?: unknown } | null;
    const message = parsed?.message ?? parsed?.Message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

export function classifyBedrockError(
  status: number,
  headers: HeaderReader,
  body: string,
  provider: ProviderId,
): UpstreamFailure {
  const name = errorName(headers.get('x-amzn-errortype'));
  const text = messageOf(body) ?? bodySnippet(body);
  const known = name === undefined ? undefined : BY_NAME[name];
  return upstreamFailure(known ?? byStatus(status), `${provider} answered ${status}${text ? `: ${text}` : ''}`, {
    status,
    ...(name ? { providerCode: name } : {}),
    ...optional(retryAfterFromHeaders(headers)),
  });
}

const optional = (retryAfterMs: number | undefined) => (retryAfterMs === undefined ? {} : { retryAfterMs });

/** An exception (or error) frame inside a 200 ConverseStream. */
export function streamException(name: string, data: string): UpstreamError {
  const known = BY_NAME[name];
  const text = messageOf(data) ?? 'exception event';
  return new UpstreamError(
    upstreamFailure(known ?? 'overload', `bedrock stream error: ${name}: ${text}`, { providerCode: name }),
  );
}
