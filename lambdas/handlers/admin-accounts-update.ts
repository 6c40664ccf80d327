import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { ACCOUNT_BUDGET_BODY, changeAccountBudget, type AccountBudgetBody } from '../identity/account-budget.js';
import { webhookUrlRefusal } from '../jobs/webhook-url.js';
import { getAccount } from '../store/accounts.js';

const body = compile<AccountBudgetBody>(ACCOUNT_BUDGET_BODY);

export const handler = defineHandler('admin-accounts-update', {
  body,
  handle: async ({ body: request, req, config }) => {
    const accountId = req.pathParams['id'] ?? '';
    if (!(await getAccount(accountId))) throw notFound('Account');
    const refusal = (url: string) => webhookUrlRefusal(url, config.localWebhookReceivers);
    return envelope({ accountId, ...(await changeAccountBudget(accountId, request, refusal)) });
  },
});
