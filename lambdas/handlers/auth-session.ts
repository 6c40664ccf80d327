import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { getAccount } from '../store/accounts.js';

export const handler = defineHandler('auth-session', {
  handle: async ({ principal }) => {
    const account = await getAccount(principal.accountId);
    return envelope({ accountId: principal.accountId, email: principal.email, name: account?.name ?? null });
  },
});
