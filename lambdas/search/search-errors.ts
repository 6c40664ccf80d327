import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Why a search was refused or failed, in search terms: no status codes. The table below says
 * how HTTP answers each kind; the arena turns them into a tool error the model can answer
 * without.
 */
export type SearchErrorKind =
  /** The caller's input is wrong; `field` names what to fix. */
  | 'invalid_request'
  /** No search provider key on this deployment. */
  | 'not_configured'
  /** The provider limits the platform's key; `retryAfterMs` when known. */
  | 'rate_limited'
  /** The provider answered non-2xx, something unreadable, or not at all (timeout, connection). */
  | 'upstream_failed';

/** How HTTP answers each kind (docs/interface.md §4.4 and §7). */
export const SEARCH_ERROR_ANSWERS: ErrorAnswers<SearchErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  not_configured: { status: 500, code: 'INTERNAL_ERROR' },
  rate_limited: { status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfter: { defaultMs: 1000, inMessage: true } },
  upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE' },
};

export class SearchError extends domainErrorClass('SearchError', SEARCH_ERROR_ANSWERS) {}

export const invalidSearch = (field: string, message: string): SearchError =>
  new SearchError('invalid_request', message, { field });
