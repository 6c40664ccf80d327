/**
 * Why a chat request failed, in the core's terms: no status codes, no headers. The HTTP layer
 * (lambdas/chat/chat-error-mapping.ts) turns each kind into a status and an error body or frame.
 */
export type ChatErrorKind =
  /** The caller's input is wrong; `field` names what to fix (a provider's rejection has none). */
  | 'invalid_request'
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

export class ChatError extends Error {
  readonly field?: string;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly kind: ChatErrorKind,
    message: string,
    details: ChatErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ChatError';
    if (details.field !== undefined) this.field = details.field;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
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
