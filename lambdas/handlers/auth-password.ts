import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { CHANGE_PASSWORD_BODY } from '../identity/account-schemas.js';
import { openDashboardSession } from '../identity/dashboard-session.js';
import { deploymentSignIn, signIn, SignInError } from '../identity/sign-in.js';
import { viewerAddress } from '../identity/viewer-address.js';

interface ChangePasswordBody {
  currentPassword: string;
  newPassword: string;
  /** null is the same as absent. */
  totpCode?: string | null;
}

/**
 * POST /api/v1/auth/password: the signed-in user changes their password. The current one is
 * checked as a sign-in is (and throttled as one), with the authenticator's code where the user
 * has one; the change ends every session of the account, this one included, and a new
 * session's cookie is answered.
 */
export const handler = defineHandler('auth-password', {
  body: compile<ChangePasswordBody>(CHANGE_PASSWORD_BODY),
  handle: async ({ body: { currentPassword, newPassword, totpCode }, principal, req, config }) => {
    const deps = deploymentSignIn(config.userPool.totpIssuer);
    const result = await signIn(principal.email, currentPassword, await viewerAddress(req, config.edgeSecretId), deps, {
      newPassword,
      totpCode: totpCode ?? undefined,
    });
    if ('mfaSetup' in result) {
      throw new SignInError(
        'mfa_setup_required',
        'This deployment requires an authenticator: set one up (POST /api/v1/auth/mfa) before changing the password',
      );
    }
    const session = await openDashboardSession(result.accountId, principal.email);
    return envelope(session.body, 200, session.headers);
  },
});
