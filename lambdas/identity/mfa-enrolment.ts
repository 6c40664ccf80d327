import { admitLogin, loginFailed, loginSucceeded } from './login-throttle.js';
import {
  beginTotpSetup,
  signIn,
  SignInError,
  throttled,
  totpRejected,
  type SignInDeps,
  type TotpSetup,
} from './sign-in.js';

/**
 * A signed-in user's authenticator (TOTP MFA): set up with the current password (and the
 * present authenticator's code, to replace one), confirmed with a code of the new secret,
 * turned off with the password and a code. Each step is a sign-in attempt for the throttle,
 * the confirming code too: guessing codes costs what guessing passwords does.
 */

export interface MfaUser {
  readonly accountId: string;
  readonly email: string;
}

/** Whether the user's authenticator is on, and a set-up begun (what the app needs). */
export interface MfaState {
  readonly enabled: boolean;
  readonly setup?: TotpSetup;
}

/** A new secret for the user's authenticator app; the current one (if any) stays until it is confirmed. */
export async function beginMfa(
  user: MfaUser,
  currentPassword: string,
  totpCode: string | undefined,
  sourceIp: string,
  deps: SignInDeps,
): Promise<MfaState> {
  const result = await signIn(user.email, currentPassword, sourceIp, deps, { totpCode });
  // The pool requires MFA and the user has none: the sign-in began the set-up itself.
  if ('mfaSetup' in result) return { enabled: false, setup: result.mfaSetup };
  const setup = await beginTotpSetup(user.email, result.accountId, { accessToken: result.accessToken }, deps);
  return { enabled: result.withTotp, setup };
}

/** A code of the secret begun: it becomes the user's authenticator, asked at every sign-in. */
export async function confirmMfa(
  user: MfaUser,
  totpCode: string,
  sourceIp: string,
  deps: SignInDeps,
): Promise<MfaState> {
  const admission = await admitLogin(user.email, sourceIp, deps.throttle);
  if (!admission.admitted) throw throttled(admission.retryAfterMs);
  const { ticket } = admission;
  const notBegun = async () => {
    await loginSucceeded(ticket, deps.throttle);
    return new SignInError(
      'mfa_setup_not_begun',
      'No authenticator set-up is waiting: begin one with currentPassword (a set-up lasts 10 minutes)',
    );
  };
  const pending = await deps.pendingMfa.get(user.accountId, deps.throttle.now());
  if (!pending) throw await notBegun();
  const verified = await deps.directory.verifyTotp(pending.authority, totpCode);
  if (verified === 'code-mismatch') {
    await loginFailed(ticket, deps.throttle);
    throw totpRejected();
  }
  await deps.pendingMfa.delete(user.accountId);
  if (verified === 'session-refused') throw await notBegun();
  let accessToken = 'accessToken' in pending.authority ? pending.authority.accessToken : undefined;
  if (verified.verified.session !== undefined) {
    // Begun at a sign-in's MFA_SETUP challenge: ending the challenge gives the user's token.
    const done = await deps.directory.completeMfaSetup(user.email, verified.verified.session);
    if (done === 'session-refused' || !('signedIn' in done))
      throw new Error('Cognito did not end the MFA set-up it had just verified');
    accessToken = done.signedIn.accessToken;
  }
  if (accessToken === undefined) throw new Error('The pending MFA set-up held neither token nor session');
  await deps.directory.setTotpPreference(accessToken, true);
  await loginSucceeded(ticket, deps.throttle);
  return { enabled: true };
}

/** Turns the authenticator off, proven by the password and a code of it in the same request. */
export async function disableMfa(
  user: MfaUser,
  currentPassword: string,
  totpCode: string,
  sourceIp: string,
  deps: SignInDeps,
  mfaRequired: boolean,
): Promise<MfaState> {
  if (mfaRequired) {
    throw new SignInError('mfa_mandatory', 'This deployment requires an authenticator for every dashboard user');
  }
  const result = await signIn(user.email, currentPassword, sourceIp, deps, { totpCode });
  if ('mfaSetup' in result || !result.withTotp) {
    throw new SignInError('mfa_not_enabled', 'This account has no authenticator to turn off');
  }
  await deps.directory.setTotpPreference(result.accessToken, false);
  return { enabled: false };
}
