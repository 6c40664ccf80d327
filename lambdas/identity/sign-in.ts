import {
  admitLogin,
  deploymentLoginThrottle,
  loginFailed,
  loginSucceeded,
  type LoginThrottleDeps,
  type LoginTicket,
} from './login-throttle.js';
import {
  changePassword,
  checkPassword,
  completeNewPassword,
  type NewPasswordOutcome,
  type PasswordChange,
  type PasswordCheck,
} from './user-directory.js';
import { getAccountIdByEmail } from '../store/accounts.js';
import { deleteSessionsOf } from '../store/sessions.js';
import { DomainError, type DomainErrorDetails, type ErrorAnswers } from '../errors/domain-error.js';

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
  /** A right temporary password without `newPassword`: the sign-in must choose the user's own. */
  | 'password_change_required'
  /** A new password the pool's policy refuses (`field` names it). */
  | 'password_rejected'
  /** Too many attempts for the account or from the client; `retryAfterMs` says when to retry. */
  | 'throttled';

/** How HTTP answers each kind (docs/interface.md §4.6): a lock is a rate limit with its wait. */
export const SIGN_IN_ERROR_ANSWERS: ErrorAnswers<SignInErrorKind> = {
  wrong_credentials: { status: 401, code: 'UNAUTHORIZED' },
  reset_required: { status: 401, code: 'PASSWORD_RESET_REQUIRED' },
  password_change_required: { status: 403, code: 'PASSWORD_CHANGE_REQUIRED' },
  password_rejected: { status: 400, code: 'BAD_REQUEST' },
  throttled: {
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Rate limit exceeded',
    retryAfter: { inMessage: true },
  },
};

export class SignInError extends DomainError<SignInErrorKind> {
  readonly answers = SIGN_IN_ERROR_ANSWERS;

  constructor(kind: SignInErrorKind, message: string, details: DomainErrorDetails = {}) {
    super(kind, message, details);
    this.name = 'SignInError';
  }
}

export interface SignInDeps {
  readonly checkPassword: (email: string, password: string) => Promise<PasswordCheck>;
  readonly completeNewPassword: (email: string, session: string, newPassword: string) => Promise<NewPasswordOutcome>;
  readonly changePassword: (email: string, password: string, newPassword: string) => Promise<PasswordChange>;
  /** Ends every dashboard session of the account. */
  readonly endSessions: (accountId: string) => Promise<unknown>;
  readonly findAccountId: (email: string) => Promise<string | undefined>;
  readonly throttle: LoginThrottleDeps;
}

export const deploymentSignIn: SignInDeps = {
  checkPassword,
  completeNewPassword,
  changePassword,
  endSessions: deleteSessionsOf,
  findAccountId: getAccountIdByEmail,
  throttle: deploymentLoginThrottle,
};

const wrongCredentials = () => new SignInError('wrong_credentials', 'Incorrect email or password');
const throttled = (retryAfterMs: number) =>
  new SignInError('throttled', 'Too many sign-in attempts', { retryAfterMs: Math.max(1, retryAfterMs) });

/** The account signed in to, or a SignInError. */
export async function signIn(
  email: string,
  password: string,
  sourceIp: string,
  deps: SignInDeps,
  newPassword?: string,
): Promise<{ accountId: string }> {
  const admission = await admitLogin(email, sourceIp, deps.throttle);
  if (!admission.admitted) throw throttled(admission.retryAfterMs);
  const { ticket } = admission;
  const check = await deps.checkPassword(email, password);
  if (typeof check === 'object') {
    // The right temporary password: counted as a success, but no session until it is replaced.
    const accountId = await accountOf(email, ticket, deps);
    if (newPassword === undefined) {
      throw new SignInError(
        'password_change_required',
        'The password was set by an administrator: sign in again with your own password as newPassword',
      );
    }
    await replacePassword(email, check.newPasswordRequired.session, newPassword, deps);
    return { accountId };
  }
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
      const accountId = await accountOf(email, ticket, deps);
      if (newPassword !== undefined) await changePermanentPassword(email, password, newPassword, accountId, deps);
      return { accountId };
    }
  }
}

/** The right password's account; a user without one (a half-made provisioning) is a failure. */
async function accountOf(email: string, ticket: LoginTicket, deps: SignInDeps): Promise<string> {
  const accountId = await deps.findAccountId(email);
  if (!accountId) {
    await loginFailed(ticket, deps.throttle);
    throw wrongCredentials();
  }
  await loginSucceeded(ticket, deps.throttle);
  return accountId;
}

/**
 * Answers the new-password challenge with the session Cognito just gave this call: the session
 * never leaves the function, so the caller proves the temporary password in the same request.
 */
async function replacePassword(email: string, session: string, newPassword: string, deps: SignInDeps): Promise<void> {
  const outcome = await deps.completeNewPassword(email, session, newPassword);
  if (typeof outcome === 'object') throw new SignInError('password_rejected', outcome.policy, { field: 'newPassword' });
  // Seconds old and used once: only a Cognito fault refuses it.
  if (outcome === 'session-refused') throw new Error('Cognito refused the new-password session it had just issued');
}

/**
 * The user's own change of a permanent password, proven by the right current one in the same
 * (throttled) request. Every session of the account ends with it: a session someone else
 * holds must not outlive the password it was opened with. The caller's new session follows.
 */
async function changePermanentPassword(
  email: string,
  password: string,
  newPassword: string,
  accountId: string,
  deps: SignInDeps,
): Promise<void> {
  const outcome = await deps.changePassword(email, password, newPassword);
  if (typeof outcome === 'object') throw new SignInError('password_rejected', outcome.policy, { field: 'newPassword' });
  // Changed between the check and this call: as a wrong password, without counting it twice.
  if (outcome === 'wrong') throw wrongCredentials();
  await deps.endSessions(accountId);
}
