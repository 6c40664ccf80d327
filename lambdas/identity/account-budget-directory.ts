import { getAccountBudgetSettings, type AccountBudgetSettings } from '../store/account-budgets.js';
import { RecordDirectory } from './record-directory.js';

/**
 * Accounts' budget settings (the budget and the budget webhook URL), cached as key records are
 * (record-directory.ts): a new, changed or removed setting reaches every instance within the
 * same 2 seconds as a key's. Read only on routes that reserve budgets, so key management and the
 * like never pay for it; a crossing found there tells the webhook from this same read.
 */
const directory = new RecordDirectory<AccountBudgetSettings>((accountId) => getAccountBudgetSettings(accountId));

export const findAccountBudgetSettings = async (accountId: string): Promise<AccountBudgetSettings> =>
  (await directory.find(accountId)) ?? {};

/** Work for after the response: settings found near the end of their cache life are read again. */
export const refreshDueAccountBudgets = () => directory.refreshDue();

/** The instance that changed a setting drops its own copy at once. */
export const forgetAccountBudget = (accountId: string) => directory.forget(accountId);
