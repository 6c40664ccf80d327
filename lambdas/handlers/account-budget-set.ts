import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { ACCOUNT_BUDGET_BODY, changeAccountBudget, type AccountBudgetBody } from '../identity/account-budget.js';
import { webhookUrlRefusal } from '../jobs/webhook-url.js';

const body = compile<AccountBudgetBody>(ACCOUNT_BUDGET_BODY);

export const handler = defineHandler('account-budget-set', {
  body,
  handle: async ({ body: request, principal, config }) =>
    envelope(
      await changeAccountBudget(principal.accountId, request, (url) =>
        webhookUrlRefusal(url, config.localWebhookReceivers),
      ),
    ),
});
