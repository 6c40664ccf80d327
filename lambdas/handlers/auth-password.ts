import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { CHANGE_PASSWORD_BODY } from '../identity/account-schemas.js';
import { openDashboardSession } from '../identity/dashboard-session.js';
import { deploymentSignIn, signIn } from '../identity/sign-in.js';

interface ChangePasswordBody {
  currentPassword: string;
  newPassword: string;
}

/**
 * POST /api/v1/auth/password: the signed-in user changes their password. The current one is
 * checked as a sign-in is (and throttled as one), the change ends every session of the account,
 * this one included, and a new session's cookie is answered.
 */
export const handler = defineHandler('auth-password', {
  body: compile<ChangePasswordBody>(CHANGE_PASSWORD_BODY),
  handle: async ({ body: { currentPassword, newPassword }, principal, req }) => {
    const { accountId } = await signIn(principal.email, currentPassword, req.sourceIp, deploymentSignIn, newPassword);
    const session = await openDashboardSession(accountId, principal.email);
    return envelope(session.body, 200, session.headers);
  },
});
