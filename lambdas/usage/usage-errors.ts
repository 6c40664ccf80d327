import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/** Why a usage report was refused: only ever the caller's period or filter. */
export type UsageErrorKind = 'invalid_request';

/** How HTTP answers each kind (docs/interface.md §4.8 and §7). */
export const USAGE_ERROR_ANSWERS: ErrorAnswers<UsageErrorKind> = {
  invalid_request: { status: 400, code: 'BAD_REQUEST' },
};

export class UsageError extends domainErrorClass('UsageError', USAGE_ERROR_ANSWERS) {}

/** A period or filter the caller must fix, naming the query field. */
export const invalidUsageQuery = (field: string, message: string): UsageError =>
  new UsageError('invalid_request', message, { field });
