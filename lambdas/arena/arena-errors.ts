import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Why an arena request was refused, in the arena's terms: no status codes. The table below says
 * how HTTP answers each kind; the response writer reads it. Failures of one agent during a
 * session are never thrown: they are events, and the session goes on.
 */
export type ArenaErrorKind =
  /** The caller's input is wrong; `field` names what to fix. */
  | 'invalid_request'
  /** Fight answers only as a stream (docs/interface.md §4.3: `stream:false` is refused). */
  | 'streaming_required'
  /** Not one agent could answer a battle that had to answer as one JSON body. */
  | 'no_answer'
  /** As `no_answer`, and every agent failed because its provider was rate limiting. */
  | 'all_rate_limited'
  /** No session by that id for this account (another account's is not told apart from none). */
  | 'session_not_found';

/** How HTTP answers each kind (docs/interface.md §7): as the chat core's failures are answered. */
export const ARENA_ERROR_ANSWERS: ErrorAnswers<ArenaErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  streaming_required: { status: 400, code: 'STREAMING_REQUIRED' },
  no_answer: { status: 503, code: 'SERVICE_UNAVAILABLE' },
  all_rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED' },
  session_not_found: { status: 404, code: 'NOT_FOUND', message: 'session not found' },
};

export class ArenaError extends domainErrorClass('ArenaError', ARENA_ERROR_ANSWERS) {}

export const invalidArenaRequest = (field: string, message: string): ArenaError =>
  new ArenaError('invalid_request', message, { field });
