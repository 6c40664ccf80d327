import type { UpstreamFailure } from '../providers/upstream-failure.js';
import { domainErrorClass, type ErrorAnswer, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Why a speech, music or video request was refused or failed, in media terms: no status codes.
 * The table below says how HTTP answers each kind.
 */
export type MediaErrorKind =
  /** The caller's input is wrong, found before any upstream call; `field` names what to fix. */
  | 'invalid_request'
  /** The upstream refused the caller's input (sensitive content, invisible characters, params). */
  | 'refused'
  /** No MiniMax key on this deployment. */
  | 'not_configured'
  /** MiniMax limits the platform's key; `retryAfterMs` when known. */
  | 'rate_limited'
  /** MiniMax failed, refused the platform's key or balance, or answered something unreadable. */
  | 'upstream_failed';

/**
 * How HTTP answers each kind (docs/interface.md §7): the caller's input 400 naming the field,
 * MiniMax's rate limit 429 with Retry-After, no provider or a failing one 503.
 */
export const MEDIA_ERROR_ANSWERS: ErrorAnswers<MediaErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  refused: { status: 400, code: 'BAD_REQUEST' },
  rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: { defaultMs: 1000, inMessage: true } },
  not_configured: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE' },
};

/** How HTTP answers a video task id the caller has no task of (jobs/job-lookup.ts). */
export const VIDEO_TASK_NOT_FOUND: ErrorAnswer = {
  status: 404,
  code: 'NOT_FOUND',
  message: 'Video task not found',
  field: 'task_id',
};

export class MediaError extends domainErrorClass('MediaError', MEDIA_ERROR_ANSWERS) {}

export const invalidMedia = (field: string, message: string): MediaError =>
  new MediaError('invalid_request', message, { field });

/** Failure kinds that are about the caller's input, not the platform or MiniMax. */
const CALLERS_INPUT: ReadonlySet<string> = new Set(['bad_request', 'content_filter']);

/** An upstream failure in media terms; `inputField` is the field a refusal is about. */
export function mediaErrorOf(failure: UpstreamFailure, inputField: string): MediaError {
  if (CALLERS_INPUT.has(failure.kind))
    return new MediaError('refused', `${inputField}: refused by the provider (${failure.message})`, {
      field: inputField,
    });
  if (failure.kind === 'rate_limit')
    return new MediaError('rate_limited', `the media provider is rate limiting: ${failure.message}`, {
      ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
    });
  return new MediaError('upstream_failed', `the media provider failed: ${failure.message}`);
}

/**
 * A refused video request, named by its field: the message starts with the field too
 * (`duration: ...`), as every 400 of the gateway does.
 */
export const invalidVideo = (field: string, rule: string): MediaError => invalidMedia(field, `${field}: ${rule}`);
