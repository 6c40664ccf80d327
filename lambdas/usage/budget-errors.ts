import { domainErrorClass, type ErrorAnswers } from '../errors/domain-error.js';

/** A call the caller's budget cannot hold (docs/interface.md, "Budgets"). */
export type BudgetErrorKind = 'exceeded';

/**
 * How HTTP answers it: 402 before any upstream call, naming the budget; `Retry-After` says when
 * the period resets (none for a `total` budget, which never does).
 */
export const BUDGET_ERROR_ANSWERS: ErrorAnswers<BudgetErrorKind> = {
  exceeded: { status: 402, code: 'BUDGET_EXCEEDED', field: 'budget', retryAfter: {} },
};

export class BudgetError extends domainErrorClass('BudgetError', BUDGET_ERROR_ANSWERS) {}
