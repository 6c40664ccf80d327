import type { AccountPrincipal } from '../identity/principal.js';
import { keyBudgets, type ScopedBudget } from '../usage/budget-holds.js';

/**
 * The budgets a caller's model calls reserve against (lambdas/usage/budget-holds.ts): its key's,
 * as the key directory holds the record. A dashboard session has no key and so no key budget.
 */
export function callerBudgets(principal: AccountPrincipal): ScopedBudget[] {
  return principal.kind === 'session' ? [] : keyBudgets(principal.keyId, principal.budget);
}
