import { defineHandler } from '../http/define-handler.js';
import { forbidden, HttpError, rateLimited, retryAfterSeconds } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { allowedOrigins } from '../identity/authenticate.js';
import { hashSessionId, newSessionId, sessionCookie, SESSION_TTL_SECONDS } from '../identity/session-cookie.js';
import { deploymentSignIn, signIn, SignInError } from '../identity/sign-in.js';
import { nowSeconds } from '../store/dynamo.js';
import { putSession } from '../store/sessions.js';
import { LOGIN_BODY } from '../identity/account-schemas.js';

interface LoginBody {
  email: string;
  password: string;
}

const body = compile<LoginBody>(LOGIN_BODY);

export const handler = defineHandler<LoginBody>('auth-login', {
  body,
  handle: async ({ body: { email, password }, req }) => {
    // Login sets a cookie, so a browser page on a foreign origin must not be able to do it.
    const origin = req.headers['origin'];
    if (origin && !allowedOrigins().includes(origin)) throw forbidden('Origin not allowed to sign in');
    const { accountId } = await signIn(email, password, req.sourceIp, deploymentSignIn).catch((error: unknown) => {
      throw error instanceof SignInError ? signInHttpError(error) : error;
    });
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

function signInHttpError(error: SignInError): HttpError {
  switch (error.kind) {
    case 'wrong_credentials':
      return new HttpError(401, 'UNAUTHORIZED', error.message);
    case 'reset_required':
      return new HttpError(401, 'PASSWORD_RESET_REQUIRED', error.message);
    case 'throttled':
      return rateLimited(retryAfterSeconds(error.retryAfterMs));
  }
}
