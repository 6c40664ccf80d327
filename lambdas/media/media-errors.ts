import type { UpstreamFailure } from '../providers/upstream-failure.js';

/**
 * Why a speech, music or video request was refused or failed, in media terms: no status codes.
 * The HTTP layer (lambdas/media/media-error-mapping.ts) maps each kind to a status and code.
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

export class MediaError extends Error {
  constructor(
    readonly kind: MediaErrorKind,
    message: string,
    readonly details: { readonly field?: string; readonly retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'MediaError';
  }
}

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
