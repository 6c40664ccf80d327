import { authenticate } from '../../identity/authenticate.js';
import { findAccountBudgetSettings, refreshDueAccountBudgets } from '../../identity/account-budget-directory.js';
import { refreshDueKeys } from '../../identity/key-directory.js';
import { requireCall, type GatewayMiddleware } from './state.js';

/** Routes with no schemes are public; the rest resolve a principal or fail with 401/403. */
export function authentication(): GatewayMiddleware {
  return {
    before: async (request) => {
      const call = requireCall(request);
      if (call.route.auth.length === 0) return;
      const principal = await authenticate(call.req, call.route.auth, {
        adminTokenSecretId: call.config.adminTokenSecretId,
        allowedOrigins: call.config.allowedOrigins,
        mayReadAdminToken: call.route.grants.includes('adminToken:read'),
      });
      // A route whose calls reserve budgets learns the account's too (lambdas/http/call.ts budgetsOf).
      if (principal.kind !== 'admin' && call.route.grants.includes('budgets:reserve')) {
        const { budget: accountBudget, webhookUrl } = await findAccountBudgetSettings(principal.accountId);
        call.principal = {
          ...principal,
          ...(accountBudget ? { accountBudget } : {}),
          ...(webhookUrl ? { budgetWebhookUrl: webhookUrl } : {}),
        };
        call.afterResponse.push(refreshDueAccountBudgets);
      } else call.principal = principal;
      // Key records this call found near the end of their cache life are read again once it
      // has answered, so the next call finds them fresh without waiting.
      call.afterResponse.push(refreshDueKeys);
    },
  };
}
