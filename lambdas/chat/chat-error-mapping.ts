import type { ChatError, ChatErrorKind } from './chat-errors.js';
import { HttpError } from '../http/errors.js';

/** The status and code each domain failure of the chat core is answered with. */
const STATUSES: Record<ChatErrorKind, { status: number; code: string }> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  content_filtered: { status: 400, code: 'CONTENT_FILTERED' },
  content_blocked: { status: 400, code: 'CONTENT_BLOCKED' },
  schema_validation_failed: { status: 400, code: 'SCHEMA_VALIDATION_FAILED' },
  upstream_rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED' },
  model_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  dependency_unavailable: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  // Only ever raised after a stream's headers went out, so only its code reaches the client.
  upstream_stream_failed: { status: 502, code: 'UPSTREAM_STREAM_FAILED' },
};

/** The one translation of the chat core's failures into HTTP. */
export function httpErrorOf(error: ChatError): HttpError {
  const { status, code } = STATUSES[error.kind];
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
  return new HttpError(status, code, error.message, error.field, headers);
}
