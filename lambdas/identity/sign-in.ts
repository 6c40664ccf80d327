import {
  admitLogin,
  deploymentLoginThrottle,
  loginFailed,
  loginSucceeded,
  type LoginThrottleDeps,
  type LoginTicket,
} from './login-throttle.js';
import { MFA_SETUP_VALIDITY_MS } from './login-limits.js';
import {
  answerTotp,
  associateTotp,
  changePassword,
  checkPassword,
  completeMfaSetup,
  completeNewPassword,
  setTotpPreference,
  verifyTotp,
  type NewPasswordOutcome,
  type PasswordChange,
  type PasswordCheck,
  type SignInChallenge,
  type SignInStep,
  type TotpOutcome,
  type TotpSetupAuthority,
} from './user-directory.js';
import {
  deletePendingMfaSetup,
  getPendingMfaSetup,
  putPendingMfaSetup,
  type PendingMfaSetup,
} from '../store/mfa-setups.js';
import { getAccountIdByEmail } from '../store/accounts.js';
import { deleteSessionsOf } from '../store/sessions.js';
import { DomainError, type DomainErrorDetails, type ErrorAnswers } from '../errors/domain-error.js';

/**
 * Dashboard sign-in as a domain step: throttle, password check, account lookup, then Cognito's
 * challenges (a new password, the authenticator's code or its set-up), each answered inside the
 * function with the session Cognito just gave it. An unknown
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
  /** The right password of a user with an authenticator, without `totpCode`. */
  | 'mfa_required'
  /** A `totpCode` that is not the authenticator's code for now, or one already used. */
  | 'totp_rejected'
  /** The pool requires MFA and the user has none: only a sign-in or the MFA route can set it up. */
  | 'mfa_setup_required'
  /** A confirming code without a set-up begun (or one begun too long ago). */
  | 'mfa_setup_not_begun'
  /** Turning off an authenticator the user does not have. */
  | 'mfa_not_enabled'
  /** Turning off the authenticator where the deployment requires one for every user. */
  | 'mfa_mandatory'
  /** Too many attempts for the account or from the client; `retryAfterMs` says when to retry. */
  | 'throttled';

/** How HTTP answers each kind (docs/interface.md §4.6): a lock is a rate limit with its wait. */
export const SIGN_IN_ERROR_ANSWERS: ErrorAnswers<SignInErrorKind> = {
  wrong_credentials: { status: 401, code: 'UNAUTHORIZED' },
  reset_required: { status: 401, code: 'PASSWORD_RESET_REQUIRED' },
  password_change_required: { status: 403, code: 'PASSWORD_CHANGE_REQUIRED' },
  password_rejected: { status: 400, code: 'BAD_REQUEST' },
  mfa_required: { status: 401, code: 'MFA_REQUIRED', field: 'totpCode' },
  totp_rejected: { status: 401, code: 'INVALID_TOTP_CODE', field: 'totpCode' },
  mfa_setup_required: { status: 403, code: 'MFA_SETUP_REQUIRED' },
  mfa_setup_not_begun: { status: 409, code: 'CONFLICT' },
  mfa_not_enabled: { status: 409, code: 'CONFLICT' },
  mfa_mandatory: { status: 409, code: 'CONFLICT' },
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

/** The Cognito calls a sign-in makes (lambdas/identity/user-directory.ts). */
export interface SignInDirectory {
  readonly checkPassword: (email: string, password: string) => Promise<PasswordCheck>;
  readonly completeNewPassword: (email: string, session: string, newPassword: string) => Promise<NewPasswordOutcome>;
  readonly changePassword: (accessToken: string, password: string, newPassword: string) => Promise<PasswordChange>;
  readonly answerTotp: (email: string, session: string, code: string) => Promise<TotpOutcome>;
  readonly associateTotp: (by: TotpSetupAuthority) => Promise<{ secret: string; session?: string }>;
  readonly verifyTotp: typeof verifyTotp;
  readonly completeMfaSetup: (email: string, session: string) => Promise<SignInStep | 'session-refused'>;
  readonly setTotpPreference: (accessToken: string, enabled: boolean) => Promise<void>;
}

/** Authenticator set-ups begun and not yet confirmed, by account (lambdas/store/mfa-setups.ts). */
export interface PendingMfaSetups {
  readonly put: (accountId: string, pending: TotpSetupAuthority, expiresAtMs: number) => Promise<void>;
  readonly get: (accountId: string, now: number) => Promise<PendingMfaSetup | undefined>;
  readonly delete: (accountId: string) => Promise<void>;
}

export interface SignInDeps {
  readonly directory: SignInDirectory;
  readonly pendingMfa: PendingMfaSetups;
  /** Ends every dashboard session of the account. */
  readonly endSessions: (accountId: string) => Promise<unknown>;
  readonly findAccountId: (email: string) => Promise<string | undefined>;
  readonly throttle: LoginThrottleDeps;
  /** The issuer an authenticator app shows beside the email (the deployment's name). */
  readonly totpIssuer: string;
}

export const deploymentDirectory: SignInDirectory = {
  checkPassword,
  completeNewPassword,
  changePassword,
  answerTotp,
  associateTotp,
  verifyTotp,
  completeMfaSetup,
  setTotpPreference,
};

export const deploymentPendingMfa: PendingMfaSetups = {
  put: putPendingMfaSetup,
  get: getPendingMfaSetup,
  delete: deletePendingMfaSetup,
};

/** The deployment's sign-in, with the authenticator issuer of its configuration. */
export const deploymentSignIn = (totpIssuer: string): SignInDeps => ({
  directory: deploymentDirectory,
  pendingMfa: deploymentPendingMfa,
  endSessions: deleteSessionsOf,
  findAccountId: getAccountIdByEmail,
  throttle: deploymentLoginThrottle,
  totpIssuer,
});

export interface SignInOptions {
  /** Replaces the password: a temporary one must be, a permanent one may be. */
  readonly newPassword?: string;
  /** The authenticator's current code, for a user with MFA (or one setting it up at sign-in). */
  readonly totpCode?: string;
}

/** What an authenticator app is given: the secret, and the `otpauth://` URI a QR code carries. */
export interface TotpSetup {
  readonly secret: string;
  readonly otpauthUri: string;
}

/**
 * Signed in (the account, and the user's access token for calls of their own, which never
 * leaves the function), or, where the pool requires MFA and the user has none, the
 * authenticator set-up begun: the same sign-in with `totpCode` then completes it.
 */
export type SignInResult =
  | {
      readonly accountId: string;
      readonly accessToken: string;
      /** Whether the sign-in took the authenticator's code: the user has MFA on. */
      readonly withTotp: boolean;
    }
  | { readonly accountId: string; readonly mfaSetup: TotpSetup };

const wrongCredentials = () => new SignInError('wrong_credentials', 'Incorrect email or password');
export const throttled = (retryAfterMs: number): SignInError =>
  new SignInError('throttled', 'Too many sign-in attempts', { retryAfterMs: Math.max(1, retryAfterMs) });
export const totpRejected = (): SignInError =>
  new SignInError('totp_rejected', 'totpCode is not the authenticator’s current code, or was already used');

/** The account signed in to, or a SignInError. */
export async function signIn(
  email: string,
  password: string,
  sourceIp: string,
  deps: SignInDeps,
  options: SignInOptions = {},
): Promise<SignInResult> {
  const admission = await admitLogin(email, sourceIp, deps.throttle);
  if (!admission.admitted) throw throttled(admission.retryAfterMs);
  const { ticket } = admission;
  const check = await deps.directory.checkPassword(email, password);
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
  }
  // The right password; a user without an account record (a half-made provisioning) is a failure.
  const accountId = await deps.findAccountId(email);
  if (!accountId) {
    await loginFailed(ticket, deps.throttle);
    throw wrongCredentials();
  }
  const flow: SignInFlow = {
    email,
    password,
    accountId,
    ticket,
    deps,
    options,
    newPasswordUsed: false,
    withTotp: false,
  };
  let step: SignInStep = check;
  // At most a new password, then an authenticator's code or set-up: Cognito asks nothing more.
  for (let answered = 0; answered < MAX_CHALLENGES; answered++) {
    if ('signedIn' in step) return finish(flow, step.signedIn.accessToken);
    const next = await answerStep(flow, step.challenge, step.session);
    if ('mfaSetup' in next) return next;
    step = next;
  }
  throw new Error(`Cognito asked more than ${MAX_CHALLENGES} challenges of one sign-in`);
}

const MAX_CHALLENGES = 3;

interface SignInFlow {
  readonly email: string;
  readonly password: string;
  readonly accountId: string;
  readonly ticket: LoginTicket;
  readonly deps: SignInDeps;
  readonly options: SignInOptions;
  newPasswordUsed: boolean;
  withTotp: boolean;
}

/** Every factor given was right: the count starts again; a permanent password may be changed now. */
async function finish(flow: SignInFlow, accessToken: string): Promise<SignInResult> {
  const { password, accountId, ticket, deps, options } = flow;
  await loginSucceeded(ticket, deps.throttle);
  if (options.newPassword !== undefined && !flow.newPasswordUsed) {
    await changePermanentPassword(accessToken, password, options.newPassword, accountId, deps);
  }
  return { accountId, accessToken, withTotp: flow.withTotp };
}

/** One challenge answered inside the function: its session never leaves it. */
async function answerStep(
  flow: SignInFlow,
  challenge: SignInChallenge,
  session: string,
): Promise<SignInStep | { readonly accountId: string; readonly mfaSetup: TotpSetup }> {
  const { email, ticket, deps, options } = flow;
  switch (challenge) {
    case 'NEW_PASSWORD_REQUIRED':
      if (options.newPassword === undefined) {
        // The right temporary password: counted as a success, but no session until it is replaced.
        await loginSucceeded(ticket, deps.throttle);
        throw new SignInError(
          'password_change_required',
          'The password was set by an administrator: sign in again with your own password as newPassword',
        );
      }
      flow.newPasswordUsed = true;
      return replacePassword(email, session, options.newPassword, deps);
    case 'SOFTWARE_TOKEN_MFA': {
      // Not a success: the attempt stays counted, or a caller holding the password could
      // alternate attempts without a code (clearing the count) and guesses of the code.
      if (options.totpCode === undefined) {
        throw new SignInError('mfa_required', 'This account has an authenticator: sign in again with its totpCode');
      }
      const answered = await deps.directory.answerTotp(email, session, options.totpCode);
      if (answered === 'code-mismatch') {
        await loginFailed(ticket, deps.throttle);
        throw totpRejected();
      }
      // Seconds old and used once: only a Cognito fault refuses it.
      if (answered === 'session-refused') throw new Error('Cognito refused the MFA session it had just issued');
      flow.withTotp = true;
      return answered;
    }
    case 'MFA_SETUP':
      return setUpAtSignIn(flow, session);
  }
}

/**
 * The pool requires MFA and the user has none. Without a code, or without a set-up begun in
 * the last minutes, a new secret is associated and the set-up's session kept server-side
 * (its answer is the secret, for the authenticator app); with the code of that secret the
 * kept session is verified and the sign-in ends.
 */
async function setUpAtSignIn(
  flow: SignInFlow,
  session: string,
): Promise<SignInStep | { readonly accountId: string; readonly mfaSetup: TotpSetup }> {
  const { email, accountId, ticket, deps, options } = flow;
  const now = deps.throttle.now();
  const pending = options.totpCode === undefined ? undefined : await deps.pendingMfa.get(accountId, now);
  if (options.totpCode === undefined || pending === undefined || !('session' in pending.authority)) {
    return { accountId, mfaSetup: await beginTotpSetup(email, accountId, { session }, deps) };
  }
  const verified = await deps.directory.verifyTotp(pending.authority, options.totpCode);
  if (verified === 'code-mismatch') {
    await loginFailed(ticket, deps.throttle);
    throw totpRejected();
  }
  if (verified === 'session-refused' || verified.verified.session === undefined) {
    // Kept past Cognito's session validity: begin again.
    await deps.pendingMfa.delete(accountId);
    return { accountId, mfaSetup: await beginTotpSetup(email, accountId, { session }, deps) };
  }
  await deps.pendingMfa.delete(accountId);
  const done = await deps.directory.completeMfaSetup(email, verified.verified.session);
  if (done === 'session-refused') throw new Error('Cognito refused the MFA set-up session it had just verified');
  flow.withTotp = true;
  return done;
}

/**
 * A new authenticator secret for the user, its set-up kept server-side until a code confirms
 * it: the access token or Cognito session it needs never reaches the caller.
 */
export async function beginTotpSetup(
  email: string,
  accountId: string,
  by: TotpSetupAuthority,
  deps: SignInDeps,
): Promise<TotpSetup> {
  const associated = await deps.directory.associateTotp(by);
  const authority = 'session' in by ? { session: associated.session ?? by.session } : by;
  await deps.pendingMfa.put(accountId, authority, deps.throttle.now() + MFA_SETUP_VALIDITY_MS);
  return { secret: associated.secret, otpauthUri: otpauthUri(deps.totpIssuer, email, associated.secret) };
}

/** Key URI Format (Google Authenticator's): the label `issuer:account`, SHA-1, 6 digits, 30 s. */
export function otpauthUri(issuer: string, email: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(email)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: '6', period: '30' });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
}

/**
 * Answers the new-password challenge with the session Cognito just gave this call: the session
 * never leaves the function, so the caller proves the temporary password in the same request.
 */
async function replacePassword(
  email: string,
  session: string,
  newPassword: string,
  deps: SignInDeps,
): Promise<SignInStep> {
  const outcome = await deps.directory.completeNewPassword(email, session, newPassword);
  if (outcome === 'session-refused') throw new Error('Cognito refused the new-password session it had just issued');
  if ('policy' in outcome) throw new SignInError('password_rejected', outcome.policy, { field: 'newPassword' });
  return outcome;
}

/**
 * The user's own change of a permanent password, proven by the right current one (and the
 * authenticator's code, where there is one) in the same throttled request. Every session of the
 * account ends with it: a session someone else holds must not outlive the password it was
 * opened with. The caller's new session follows.
 */
async function changePermanentPassword(
  accessToken: string,
  password: string,
  newPassword: string,
  accountId: string,
  deps: SignInDeps,
): Promise<void> {
  const outcome = await deps.directory.changePassword(accessToken, password, newPassword);
  if (typeof outcome === 'object') throw new SignInError('password_rejected', outcome.policy, { field: 'newPassword' });
  // Changed between the check and this call: as a wrong password, without counting it twice.
  if (outcome === 'wrong') throw wrongCredentials();
  await deps.endSessions(accountId);
}
