import type { ProviderId } from '../../catalog/model-catalog.js';
import {
  retryAfterFromHeaders,
  upstreamFailure,
  type FailureKind,
  type UpstreamFailure,
  type HeaderReader,
} from '../upstream-failure.js';
import type { ErrorRule, OpenAiCompatibleQuirks } from './openai-compatible-quirks.js';
import { isObject, text } from './openai-compatible-wire.js';

/**
 * Failure classification for the OpenAI-compatible upstreams: HTTP errors before the answer,
 * and errors reported inside a 200 (a stream chunk or a choice carrying `error`).
 */

/** An upstream error, read leniently from any of the envelopes these upstreams use. */
interface WireError {
  readonly message: string;
  /** `code` as text, whether the upstream sent a string or a number. */
  readonly code?: string;
  /** A numeric `code` (OpenRouter: the HTTP status the error stands for). */
  readonly numericCode?: number;
  readonly type?: string;
  /** OpenRouter's `metadata.error_type`. */
  readonly errorType?: string;
  readonly retryAfterMs?: number;
}

export function classifyHttpError(
  status: number,
  headers: HeaderReader,
  text: string,
  provider: ProviderId,
  quirks: OpenAiCompatibleQuirks,
): UpstreamFailure {
  const wire = readWireError(parseJson(text)) ?? { message: text.trim().slice(0, 200) || 'no error body' };
  let kind = ruleKind(quirks.errorRules, status, wire) ?? statusKind(status);
  kind = honourShouldRetry(kind, status, headers.get('x-should-retry'));
  return failure(
    kind,
    `${provider} answered HTTP ${status}: ${wire.message}`,
    wire,
    status,
    retryAfterFromHeaders(headers),
  );
}

/**
 * An error inside a 200 answer: `{error:{...}}` (OpenAI, OpenRouter), `{code, error}` (xAI),
 * or a bare error object (an OpenRouter choice's `error`). The HTTP status is gone, so the
 * code decides; a failure with nothing recognisable is the upstream's own (`overload`).
 */
export function classifyInBandError(
  value: unknown,
  provider: ProviderId,
  quirks: OpenAiCompatibleQuirks,
): UpstreamFailure {
  const wire = readWireError(value) ?? readWireError({ error: value }) ?? { message: 'unreadable error' };
  const kind =
    ruleKind(quirks.errorRules, wire.numericCode, wire) ??
    codeKind(wire) ??
    (wire.numericCode !== undefined && wire.numericCode >= 400 ? statusKind(wire.numericCode) : 'overload');
  return failure(kind, `${provider} reported an error mid-answer: ${wire.message}`, wire);
}

function failure(
  kind: FailureKind,
  message: string,
  wire: WireError,
  status?: number,
  headerHint?: number,
): UpstreamFailure {
  const retryAfterMs = headerHint ?? wire.retryAfterMs ?? hintFromText(wire.message);
  const providerCode = wire.code ?? wire.errorType ?? wire.type;
  return upstreamFailure(kind, message, { status, providerCode, retryAfterMs });
}

function readWireError(body: unknown): WireError | undefined {
  if (!isObject(body)) return undefined;
  const error = body['error'];
  if (typeof error === 'string') return { message: error, ...optional('code', text(body['code'])) };
  if (!isObject(error)) return undefined;
  const metadata = isObject(error['metadata']) ? error['metadata'] : {};
  const availability = isObject(error['availability']) ? error['availability'] : {};
  const code = error['code'];
  const numericCode =
    typeof code === 'number' ? code : typeof error['http_status'] === 'number' ? error['http_status'] : undefined;
  const retryAfter = availability['retry_after'];
  return {
    message: text(error['message']) ?? 'no error message',
    ...optional('code', typeof code === 'number' ? String(code) : text(code)),
    ...optional('numericCode', numericCode),
    ...optional('type', text(error['type'])),
    ...optional('errorType', text(metadata['error_type']) ?? text(error['error_type'])),
    ...optional('retryAfterMs', typeof retryAfter === 'number' ? capHint(retryAfter * 1000) : undefined),
  };
}

function ruleKind(rules: readonly ErrorRule[], status: number | undefined, wire: WireError): FailureKind | undefined {
  const names = [wire.code, wire.type, wire.errorType];
  return rules.find(
    (rule) =>
      (rule.status === undefined || rule.status === status) &&
      (rule.codes === undefined || names.some((name) => name !== undefined && rule.codes!.includes(name))) &&
      (rule.message === undefined || rule.message.test(wire.message)),
  )?.kind;
}

function statusKind(status: number): FailureKind {
  const known = KIND_BY_STATUS[status];
  if (known) return known;
  if (status >= 500) return 'overload';
  return status >= 400 ? 'bad_request' : 'malformed';
}

const KIND_BY_STATUS: Readonly<Record<number, FailureKind>> = {
  401: 'auth',
  402: 'quota',
  403: 'auth',
  408: 'timeout',
  // A conflict or lock timeout: the OpenAI SDK retries it.
  409: 'overload',
  429: 'rate_limit',
  504: 'timeout',
};

/** The error codes OpenAI-compatible upstreams put in a 200 answer, by what they mean. */
const KIND_BY_CODE: Readonly<Record<string, FailureKind>> = {
  rate_limit_exceeded: 'rate_limit',
  insufficient_quota: 'quota',
  payment_required: 'quota',
  invalid_api_key: 'auth',
  authentication: 'auth',
  content_filter: 'content_filter',
  content_policy_violation: 'content_filter',
  context_length_exceeded: 'bad_request',
  invalid_request_error: 'bad_request',
  server_error: 'overload',
  timeout: 'timeout',
};

function codeKind(wire: WireError): FailureKind | undefined {
  for (const name of [wire.code, wire.errorType, wire.type]) {
    if (name !== undefined && Object.hasOwn(KIND_BY_CODE, name)) return KIND_BY_CODE[name];
  }
  return undefined;
}

/**
 * OpenAI's `x-should-retry` overrides the status. FailureKind carries retryability, so a
 * "retry" turns a final kind transient, and a "don't" turns a rate limit into `quota` (not
 * worth waiting for here, another provider may serve). Other transient kinds stay: no kind
 * says "a server failure not worth retrying".
 */
function honourShouldRetry(kind: FailureKind, status: number, header: string | null): FailureKind {
  if (header === 'true' && (kind === 'bad_request' || kind === 'quota' || kind === 'auth')) {
    return status === 429 ? 'rate_limit' : 'overload';
  }
  if (header === 'false' && kind === 'rate_limit') return 'quota';
  return kind;
}

/** "Please try again in 6.5s" / "in 250ms" / "in 1m30s" (OpenAI rate-limit messages). */
export function hintFromText(message: string): number | undefined {
  const match = /try again in\s+((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)/i.exec(message);
  if (!match) return undefined;
  const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let ms = 0;
  for (const part of match[1]!.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/gi))
    ms += Number(part[1]) * unitMs[part[2]!.toLowerCase()]!;
  return capHint(Math.ceil(ms));
}

/** Hints beyond a minute are ignored, as `retryAfterFromHeaders` does with headers. */
const capHint = (ms: number): number | undefined => (Number.isFinite(ms) && ms >= 0 && ms <= 60_000 ? ms : undefined);

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
