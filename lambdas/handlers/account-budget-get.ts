import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { describeAccountBudget } from '../identity/account-budget.js';

export const handler = defineHandler('account-budget-get', {
  handle: async ({ principal }) => envelope(await describeAccountBudget(principal.accountId)),
});
