/**
 * Why a search was refused or failed, in search terms: no status codes. The HTTP layer
 * (lambdas/search/search-error-mapping.ts) maps each kind to a status and code; the arena turns
 * them into a tool error the model can answer without.
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

export class SearchError extends Error {
  constructor(
    readonly kind: SearchErrorKind,
    message: string,
    readonly details: { readonly field?: string; readonly retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'SearchError';
  }
}

export const invalidSearch = (field: string, message: string): SearchError =>
  new SearchError('invalid_request', message, { field });
