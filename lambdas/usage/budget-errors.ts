import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/** A call the caller's budget cannot hold (docs/interface.md §2.5). */
export type BudgetErrorKind = 'exceeded' | 'unavailable';

/**
 * How HTTP answers it: 402 before any upstream call, naming the budget; `Retry-After` says when
 * the period resets (none for a `total` budget, which never does).
 */
export const BUDGET_ERROR_ANSWERS: ErrorAnswers<BudgetErrorKind> = {
  exceeded: { status: 402, code: 'BUDGET_EXCEEDED', field: 'budget', retryAfter: {} },
  // The budget's counter could not be written (DynamoDB throttling past the SDK's retries): the
  // call is not made unreserved; the caller may try again shortly.
  unavailable: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The budget could not be checked just now; retry shortly',
    retryAfter: { defaultMs: 1_000 },
  },
};

export class BudgetError extends domainErrorClass('BudgetError', BUDGET_ERROR_ANSWERS) {}
