import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { createDashboardUser } from '../identity/user-directory.js';
import { createAccount, deleteAccount } from '../store/accounts.js';
import { CREATE_ACCOUNT_BODY } from '../identity/account-schemas.js';

interface CreateAccountBody {
  email: string;
  name: string;
}

const body = compile<CreateAccountBody>(CREATE_ACCOUNT_BODY);

/**
 * Creates the account and its dashboard user. The user's first password is returned once,
 * here, for the admin to hand over; if the user cannot be created the account is undone.
 */
export const handler = defineHandler('admin-accounts-create', {
  body,
  handle: async ({ body: { email, name } }) => {
    const account = await createAccount(email.toLowerCase(), name);
    let initialPassword: string;
    try {
      initialPassword = await createDashboardUser(account.email, name);
    } catch (error) {
      await deleteAccount(account);
      throw error;
    }
    return envelope({ ...account, dashboard: { email: account.email, initialPassword } }, 201);
  },
});
