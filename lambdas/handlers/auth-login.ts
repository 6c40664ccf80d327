import { defineHandler } from '../http/define-handler.js';
import { notAllowed } from '../identity/identity-errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { openDashboardSession } from '../identity/dashboard-session.js';
import { deploymentSignIn, signIn } from '../identity/sign-in.js';
import { LOGIN_BODY } from '../identity/account-schemas.js';
import { viewerAddress } from '../identity/viewer-address.js';

interface LoginBody {
  email: string;
  password: string;
  /** null is the same as absent. */
  newPassword?: string | null;
  totpCode?: string | null;
}

const body = compile<LoginBody>(LOGIN_BODY);

export const handler = defineHandler('auth-login', {
  body,
  handle: async ({ body: { email, password, newPassword, totpCode }, req, config }) => {
    // Login sets a cookie, so a browser page on a foreign origin must not be able to do it.
    const origin = req.headers['origin'];
    if (origin && !config.allowedOrigins.includes(origin)) throw notAllowed('Origin not allowed to sign in');
    const result = await signIn(
      email,
      password,
      await viewerAddress(req, config.edgeSecretId),
      deploymentSignIn(config.userPool.totpIssuer),
      {
        newPassword: newPassword ?? undefined,
        totpCode: totpCode ?? undefined,
      },
    );
    // The deployment requires MFA and the user has none: the secret to add, no session yet.
    if ('mfaSetup' in result) return envelope({ mfaSetup: result.mfaSetup }, 202, { 'Cache-Control': 'no-store' });
    const session = await openDashboardSession(result.accountId, email);
    return envelope(session.body, 200, session.headers);
  },
});
