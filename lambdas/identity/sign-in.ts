import {
  admitLogin,
  deploymentLoginThrottle,
  loginFailed,
  loginSucceeded,
  type LoginThrottleDeps,
} from './login-throttle.js';
import { checkPassword, type PasswordCheck } from './user-directory.js';
import { getAccountIdByEmail } from '../store/accounts.js';
import { DomainError, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Dashboard sign-in as a domain step: throttle, password check, account lookup. An unknown
 * email, a wrong password and a locked account take one path each way: every attempt that is
 * let through reaches the user directory (which hashes for unknown users too), and a lock is
 * decided from the email tried, never from whether it exists.
 */

export type SignInErrorKind =
  /** Wrong password or unknown email: one answer for both. */
  | 'wrong_credentials'
  | 'reset_required'
  /** Too many attempts for the account or from the client; `retryAfterMs` says when to retry. */
  | 'throttled';

/** How HTTP answers each kind (docs/interface.md §4.6): a lock is a rate limit with its wait. */
export const SIGN_IN_ERROR_ANSWERS: ErrorAnswers<SignInErrorKind> = {
  wrong_credentials: { status: 401, code: 'UNAUTHORIZED' },
  reset_required: { status: 401, code: 'PASSWORD_RESET_REQUIRED' },
  throttled: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Rate limit exceeded',
    retryAfter: { inMessage: true },
  },
};

export class SignInError extends DomainError<SignInErrorKind> {
  readonly answers = SIGN_IN_ERROR_ANSWERS;

  constructor(kind: SignInErrorKind, message: string, retryAfterMs = 0) {
    super(kind, message, { retryAfterMs });
    this.name = 'SignInError';
  }
}

export interface SignInDeps {
  readonly checkPassword: (email: string, password: string) => Promise<PasswordCheck>;
  readonly findAccountId: (email: string) => Promise<string | undefined>;
  readonly throttle: LoginThrottleDeps;
}

export const deploymentSignIn: SignInDeps = {
  checkPassword,
  findAccountId: getAccountIdByEmail,
  throttle: deploymentLoginThrottle,
};

const wrongCredentials = () => new SignInError('wrong_credentials', 'Incorrect email or password');
const throttled = (retryAfterMs: number) =>
  new SignInError('throttled', 'Too many sign-in attempts', Math.max(1, retryAfterMs));

/** The account signed in to, or a SignInError. */
export async function signIn(
  email: string,
  password: string,
  sourceIp: string,
  deps: SignInDeps,
): Promise<{ accountId: string }> {
  const admission = await admitLogin(email, sourceIp, deps.throttle);
  if (!admission.admitted) throw throttled(admission.retryAfterMs);
  const { ticket } = admission;
  const check = await deps.checkPassword(email, password);
  switch (check) {
    case 'locked': {
      // Cognito's own lock, seen when its count ran ahead of ours: the same answer as ours.
      const lockedForMs = await loginFailed(ticket, deps.throttle);
      throw throttled(Math.max(lockedForMs, deps.throttle.limits.firstLockMs));
    }
    case 'wrong':
      await loginFailed(ticket, deps.throttle);
      throw wrongCredentials();
    case 'reset-required':
      // Cognito challenges only a right password; a pending reset refuses every password, so
      // guessing there is pointless either way: not a failure to count.
      await loginSucceeded(ticket, deps.throttle);
      throw new SignInError('reset_required', 'Password must be reset first');
    case 'ok': {
      const accountId = await deps.findAccountId(email);
      if (!accountId) {
        await loginFailed(ticket, deps.throttle);
        throw wrongCredentials();
      }
      await loginSucceeded(ticket, deps.throttle);
      return { accountId };
    }
  }
}
