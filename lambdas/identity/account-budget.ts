import type { JSONSchemaType } from 'ajv';
import { getAccountBudget, setAccountBudget } from '../store/account-budgets.js';
import { accountBudgetScope, budgetCounterRef, type StoredBudget } from '../store/budget-counters.js';
import { BUDGET_SHARDS, readShardedCounter } from '../store/budget-shards.js';
import { forgetAccountBudget } from './account-budget-directory.js';
import { budgetView, type BudgetView } from './budget-view.js';
import { IdentityError } from './identity-errors.js';
import { BUDGET, storedBudget, type BudgetBody } from './key-schemas.js';

/**
 * An account's budget as its routes read and change it (docs/interface.md §2.5): the account's
 * own (`GET`/`PATCH /api/v1/budget`, the dashboard) and the operator's (`PATCH
 * /api/admin/v1/accounts/{id}`) are the one budget.
 */

export interface AccountBudgetBody {
  /** The new budget, or null to remove it; required. */
  readonly budget?: BudgetBody | null;
}

export const ACCOUNT_BUDGET_BODY = {
  type: 'object',
  properties: {
    budget: {
      ...BUDGET,
      nullable: true,
      description:
        "Extension: the account's spending limit over all its keys and sessions (docs/interface.md §2.5); null removes it",
    },
  },
  // Required, as changeAccountBudget says: ajv's types cannot make a nullable field required.
  additionalProperties: false,
} as const satisfies JSONSchemaType<AccountBudgetBody>;

/** The account's budget with its current period's spend (the sum of its shards), or null. */
export async function describeAccountBudget(
  accountId: string,
  stored?: StoredBudget | null,
  now = new Date(),
): Promise<{ budget: BudgetView | null }> {
  const budget = stored === undefined ? await getAccountBudget(accountId) : stored;
  if (!budget) return { budget: null };
  const period = budgetCounterRef(accountBudgetScope(accountId), budget.period, now);
  const counter = await readShardedCounter(period, BUDGET_SHARDS);
  return { budget: budgetView(budget, counter, period.resetsAt) };
}

/** Sets or removes the account's budget and answers it as it now stands. */
export async function changeAccountBudget(accountId: string, body: AccountBudgetBody, now = new Date()) {
  if (body.budget === undefined)
    throw new IdentityError('invalid_request', 'budget: required: {limitUsd, period}, or null to remove the budget', {
      field: 'budget',
    });
  const budget = body.budget && storedBudget(body.budget);
  await setAccountBudget(accountId, budget, now);
  forgetAccountBudget(accountId);
  return describeAccountBudget(accountId, budget, now);
}
