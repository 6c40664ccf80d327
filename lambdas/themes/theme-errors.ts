import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/** What can go wrong choosing a theme, in the themes' terms; the table says how HTTP answers. */
export type ThemeErrorKind = 'invalid_request' | 'not_found' | 'upstream_failed';

/** How HTTP answers each kind (docs/interface.md §4.5 and §7). */
export const THEME_ERROR_ANSWERS: ErrorAnswers<ThemeErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
  not_found: { status: 404, code: 'NOT_FOUND' },
  upstream_failed: { status: 503, code: 'SERVICE_UNAVAILABLE' },
};

export class ThemeError extends domainErrorClass('ThemeError', THEME_ERROR_ANSWERS) {}
