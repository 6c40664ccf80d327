import { getAccountBudget } from '../store/account-budgets.js';
import type { StoredBudget } from '../store/budget-counters.js';
import { RecordDirectory } from './record-directory.js';

/**
 * Accounts' budgets, cached as key records are (record-directory.ts): a new, changed or removed
 * account budget reaches every instance within the same 2 seconds as a key's. Read only on
 * routes that reserve budgets, so key management and the like never pay for it.
 */
const directory = new RecordDirectory<StoredBudget>(async (accountId) => (await getAccountBudget(accountId)) ?? null);

export const findAccountBudget = async (accountId: string): Promise<StoredBudget | undefined> =>
  (await directory.find(accountId)) ?? undefined;

/** Work for after the response: budgets found near the end of their cache life are read again. */
export const refreshDueAccountBudgets = () => directory.refreshDue();

/** The instance that changed a budget drops its own copy at once. */
export const forgetAccountBudget = (accountId: string) => directory.forget(accountId);
