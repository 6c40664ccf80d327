import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/** Why a caller was not let in, or a key could not be issued, in identity's terms. */
export type IdentityErrorKind =
  /** No credential was sent at all. */
  | 'missing_credentials'
  /** A credential was sent and is not a working one (unknown, revoked, disabled, malformed). */
  | 'invalid_credentials'
  /** A working credential that may not reach this route, or not from this origin. */
  | 'not_allowed'
  /** A key request the caller must fix; `field` names what. */
  | 'invalid_request';

/** How HTTP answers each kind (docs/interface.md §7). */
export const IDENTITY_ERROR_ANSWERS: ErrorAnswers<IdentityErrorKind> = {
  missing_credentials: { status: 401, code: 'UNAUTHORIZED' },
  invalid_credentials: { status: 401, code: 'INVALID_API_KEY' },
  not_allowed: { status: 403, code: 'FORBIDDEN' },
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
};

export class IdentityError extends domainErrorClass('IdentityError', IDENTITY_ERROR_ANSWERS) {}

export const missingCredentials = (
  message = 'Missing credentials: send Authorization: Bearer <key> or X-API-Key',
): IdentityError => new IdentityError('missing_credentials', message);

export const invalidCredentials = (message = 'Invalid API key'): IdentityError =>
  new IdentityError('invalid_credentials', message);

export const notAllowed = (message: string): IdentityError => new IdentityError('not_allowed', message);
