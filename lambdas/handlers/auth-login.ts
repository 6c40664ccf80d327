import { defineHandler } from '../http/define-handler.js';
import { notAllowed } from '../identity/identity-errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { hashSessionId, newSessionId, sessionCookie, SESSION_TTL_SECONDS } from '../identity/session-cookie.js';
import { deploymentSignIn, signIn } from '../identity/sign-in.js';
import { nowSeconds } from '../store/dynamo.js';
import { putSession } from '../store/sessions.js';
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
    const sessionId = newSessionId();
    const now = new Date();
    const expiresAt = nowSeconds(now.getTime()) + SESSION_TTL_SECONDS;
    await putSession(hashSessionId(sessionId), { accountId, email, createdAt: now.toISOString(), expiresAt });
    return envelope({ accountId, email, expiresAt: new Date(expiresAt * 1000).toISOString() }, 200, {
      'Set-Cookie': sessionCookie(sessionId),
      'Cache-Control': 'no-store',
    });
  },
});
