import { defineHandler } from '../http/define-handler.js';
import { forbidden, HttpError } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { allowedOrigins } from '../identity/authenticate.js';
import { hashSessionId, newSessionId, sessionCookie, SESSION_TTL_SECONDS } from '../identity/session-cookie.js';
import { checkPassword } from '../identity/user-directory.js';
import { getAccountIdByEmail } from '../store/accounts.js';
import { nowSeconds } from '../store/dynamo.js';
import { putSession } from '../store/sessions.js';
import { LOGIN_BODY } from '../identity/account-schemas.js';

interface LoginBody {
  email: string;
  password: string;
}

const body = compile<LoginBody>(LOGIN_BODY);

const wrongCredentials = () => new HttpError(401, 'UNAUTHORIZED', 'Incorrect email or password');

export const handler = defineHandler<LoginBody>('auth-login', {
  body,
  handle: async ({ body: { email, password }, req }) => {
    // Login sets a cookie, so a browser page on a foreign origin must not be able to do it.
    const origin = req.headers['origin'];
    if (origin && !allowedOrigins().includes(origin)) throw forbidden('Origin not allowed to sign in');
    const check = await checkPassword(email, password);
    if (check === 'wrong') throw wrongCredentials();
    if (check === 'reset-required') throw new HttpError(401, 'PASSWORD_RESET_REQUIRED', 'Password must be reset first');
    const accountId = await getAccountIdByEmail(email);
    if (!accountId) throw wrongCredentials();
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
