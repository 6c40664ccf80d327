import { DomainError, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Why a chat request failed, in the core's terms: no status codes, no headers. The table below
 * says how HTTP answers each kind; the response writer (http/errors.ts httpErrorOf) reads it.
 */
export type ChatErrorKind =
  /** The caller's input is wrong; `field` names what to fix (a provider's rejection has none). */
  | 'invalid_request'
  /** `GET /api/v1/models/{id}` named no model of the catalog. */
  | 'model_not_found'
  /** The model provider refused the content. */
  | 'content_filtered'
  /** The gateway's moderation blocked the request or the answer. */
  | 'content_blocked'
  /** The answer does not match the caller's response_format. */
  | 'schema_validation_failed'
  /** Every target was rate limiting; `retryAfterSeconds` says when to try again. */
  | 'upstream_rate_limited'
  /** No target could answer (or none is configured). */
  | 'model_unavailable'
  /** A service the request needs (moderation, prompt templates) cannot answer. */
  | 'dependency_unavailable'
  /** A stream failed after its first chunk went out (the upstream broke, or time ran out). */
  | 'upstream_stream_failed';

export interface ChatErrorDetails {
  readonly field?: string;
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/** How HTTP answers each kind (docs/interface.md §7); the response writer alone reads it. */
export const CHAT_ERROR_ANSWERS: ErrorAnswers<ChatErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  // OpenAI's own code for it, which SDK callers test for (docs/interface.md §7).
  model_not_found: { status: 404, code: 'model_not_found', field: 'id' },
  content_filtered: { status: 400, code: 'CONTENT_FILTERED' },
  content_blocked: { status: 400, code: 'CONTENT_BLOCKED' },
  schema_validation_failed: { status: 400, code: 'SCHEMA_VALIDATION_FAILED' },
  upstream_rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: {} },
  model_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  dependency_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  // Only ever raised after a stream's headers went out, so only its code reaches the client.
  upstream_stream_failed: { status: 502, code: 'UPSTREAM_STREAM_FAILED' },
};

export class ChatError extends DomainError<ChatErrorKind> {
  readonly answers = CHAT_ERROR_ANSWERS;
  /** The router's hint in whole seconds, as the rate-limited answer's Retry-After gives it. */
  readonly retryAfterSeconds?: number;

  constructor(kind: ChatErrorKind, message: string, details: ChatErrorDetails = {}) {
    const { retryAfterSeconds, ...rest } = details;
    super(kind, message, retryAfterSeconds === undefined ? rest : { ...rest, retryAfterMs: retryAfterSeconds * 1000 });
    this.name = 'ChatError';
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const invalidRequest = (field: string, message: string): ChatError =>
  new ChatError('invalid_request', message, { field });

/** True for failures the caller caused (what HTTP answers with a 4xx). */
export const isCallersFault = (error: unknown): error is ChatError =>
  error instanceof ChatError &&
  (error.kind === 'invalid_request' ||
    error.kind === 'content_filtered' ||
    error.kind === 'content_blocked' ||
    error.kind === 'schema_validation_failed');
