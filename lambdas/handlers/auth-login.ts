import { defineHandler } from '../http/define-handler.js';
import { notAllowed } from '../identity/identity-errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { openDashboardSession } from '../identity/dashboard-session.js';
import { deploymentSignIn, signIn } from '../identity/sign-in.js';
import { LOGIN_BODY } from '../identity/account-schemas.js';

interface LoginBody {
  email: string;
  password: string;
  /** null is the same as absent. */
  newPassword?: string | null;
}

const body = compile<LoginBody>(LOGIN_BODY);

export const handler = defineHandler('auth-login', {
  body,
  handle: async ({ body: { email, password, newPassword }, req, config }) => {
    // Login sets a cookie, so a browser page on a foreign origin must not be able to do it.
    const origin = req.headers['origin'];
    if (origin && !config.allowedOrigins.includes(origin)) throw notAllowed('Origin not allowed to sign in');
    const { accountId } = await signIn(email, password, req.sourceIp, deploymentSignIn, newPassword ?? undefined);
    const session = await openDashboardSession(accountId, email);
    return envelope(session.body, 200, session.headers);
  },
});
