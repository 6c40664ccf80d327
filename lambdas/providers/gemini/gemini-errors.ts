import type { ProviderId } from '../../catalog/model-catalog.js';
import {
  bodySnippet,
  retryAfterFromHeaders,
  upstreamFailure,
  type FailureKind,
  type UpstreamFailure,
  type HeaderReader,
} from '../upstream-failure.js';

/**
 * Gemini's error classification (docs/upstreams.md §3.6, §9). The body is a google.rpc.Status
 * `{"error":{code,message,status,details[]}}`, sometimes wrapped in an array; its `status`
 * decides, refined by `details`, and the HTTP status decides when the body is not Google's.
 */

const BY_RPC_STATUS: Readonly<Record<string, FailureKind>> = {
  INVALID_ARGUMENT: 'bad_request',
  OUT_OF_RANGE: 'bad_request',
  NOT_FOUND: 'bad_request',
  // Billing required or region not served: a condition of this account, which another
  // provider may not share, so fallback stays allowed (unlike a bad request).
  FAILED_PRECONDITION: 'quota',
  UNAUTHENTICATED: 'auth',
  PERMISSION_DENIED: 'auth',
  RESOURCE_EXHAUSTED: 'rate_limit',
  INTERNAL: 'overload',
  UNAVAILABLE: 'overload',
  UNKNOWN: 'overload',
  ABORTED: 'overload',
  DEADLINE_EXCEEDED: 'timeout',
};

/** ErrorInfo reasons that mean the key itself is bad, whatever the status says (400 for a bad key). */
const AUTH_REASONS: ReadonlySet<string> = new Set(['API_KEY_INVALID', 'API_KEY_EXPIRED']);

/** A QuotaFailure on a daily quota will not clear within a request's retries. */
const DAILY_QUOTA = /PerDay/i;

function byStatus(status: number): FailureKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500) return 'overload';
  return 'bad_request';
}

interface RpcDetail {
  '@type'?: unknown;
  reason?: unknown;
  retryDelay?: unknown;
  violations?: unknown;
}

interface RpcStatus {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  details?: unknown;
}

export function classifyGeminiError(
  status: number,
  headers: HeaderReader,
  body: string,
  provider: ProviderId,
): UpstreamFailure {
  const error = rpcStatusOf(parseJson(body));
  const text = typeof error?.message === 'string' ? error.message : bodySnippet(body);
  const failure = describe(error, status, `${provider} answered ${status}${text ? `: ${text}` : ''}`);
  if (failure.retryAfterMs === undefined) {
    const fromHeaders = retryAfterFromHeaders(headers);
    if (fromHeaders !== undefined) return { ...failure, retryAfterMs: fromHeaders };
  }
  return failure;
}

/**
 * A body (or stream event) that is an error envelope instead of a response, classified by its
 * own `code` as an HTTP status would be; undefined when the payload is not an error.
 */
export function inBandError(payload: unknown, provider = 'gemini'): UpstreamFailure | undefined {
  const error = rpcStatusOf(payload);
  if (!error) return undefined;
  const code = typeof error.code === 'number' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : 'error in a 200 answer';
  return describe(error, code, `${provider} stream error${code ? ` ${code}` : ''}: ${message}`);
}

function describe(error: RpcStatus | undefined, status: number | undefined, message: string): UpstreamFailure {
  const details = Array.isArray(error?.details) ? (error.details as RpcDetail[]) : [];
  const rpcStatus = typeof error?.status === 'string' ? error.status : undefined;
  const reason = details.find((d) => typeOf(d) === 'ErrorInfo' && typeof d.reason === 'string')?.reason as
    string | undefined;
  const kind = kindOf(rpcStatus, reason, details, status);
  const providerCode = reason ?? rpcStatus;
  const retryAfterMs = retryDelayOf(details);
  return upstreamFailure(kind, message, { status, providerCode, retryAfterMs });
}

function kindOf(
  rpcStatus: string | undefined,
  reason: string | undefined,
  details: RpcDetail[],
  status: number | undefined,
): FailureKind {
  if (reason !== undefined && AUTH_REASONS.has(reason)) return 'auth';
  const kind =
    (rpcStatus !== undefined ? BY_RPC_STATUS[rpcStatus] : undefined) ??
    (status !== undefined ? byStatus(status) : 'overload');
  if (kind === 'rate_limit' && dailyQuota(details)) return 'quota';
  return kind;
}

function dailyQuota(details: RpcDetail[]): boolean {
  return details.some(
    (d) =>
      typeOf(d) === 'QuotaFailure' &&
      Array.isArray(d.violations) &&
      d.violations.some((v: { quotaId?: unknown }) => typeof v?.quotaId === 'string' && DAILY_QUOTA.test(v.quotaId)),
  );
}

/** `RetryInfo.retryDelay` is a protobuf Duration in JSON: `"36s"`, `"0.5s"`. Over a minute is ignored, as for headers. */
function retryDelayOf(details: RpcDetail[]): number | undefined {
  const delay = details.find((d) => typeOf(d) === 'RetryInfo')?.retryDelay;
  const seconds = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined;
  if (seconds === undefined) return undefined;
  const ms = Math.round(Number(seconds) * 1000);
  return ms <= 60_000 ? ms : undefined;
}

/** `type.googleapis.com/google.rpc.RetryInfo` → `RetryInfo`. */
function typeOf(detail: RpcDetail): string | undefined {
  const type = detail?.['@type'];
  return typeof type === 'string' ? type.slice(type.lastIndexOf('.') + 1) : undefined;
}

/** `{"error":{…}}` or the array-wrapped `[{"error":{…}}]`. */
function rpcStatusOf(payload: unknown): RpcStatus | undefined {
  const envelope = Array.isArray(payload) ? payload[0] : payload;
  const error = (envelope as { error?: unknown } | null | undefined)?.error;
  return error !== null && typeof error === 'object' && !Array.isArray(error) ? (error as RpcStatus) : undefined;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
