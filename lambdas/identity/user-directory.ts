import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { randomBytes, randomInt } from 'node:crypto';
import { configuration, required } from '../config/configuration.js';
import { ENV } from '../config/environment.js';

/**
 * Dashboard users live in the Cognito user pool; the gateway never sees or stores a password
 * beyond passing it to Cognito. Locally the same API is served by a stand-in.
 */
const sdk = () => import('@aws-sdk/client-cognito-identity-provider');
let client: CognitoIdentityProviderClient | undefined;

/** Loaded on first use: only the sign-in and provisioning functions ever talk to Cognito. */
async function cognito() {
  const module = await sdk();
  client ??= new module.CognitoIdentityProviderClient({ maxAttempts: 3 });
  return { client, ...module };
}

/**
 * Where a sign-in stands after a step with Cognito: signed in (the user's access token, for the
 * user's own calls), or a challenge to answer with Cognito's session string. Neither token nor
 * session ever leaves the function but through the pending MFA set-up (lambdas/store/mfa-setups.ts).
 */
export type SignInStep =
  | { readonly signedIn: { readonly accessToken: string } }
  | { readonly challenge: SignInChallenge; readonly session: string };

/**
 * NEW_PASSWORD_REQUIRED: a right temporary password (one the admin API set). SOFTWARE_TOKEN_MFA:
 * the user's authenticator code. MFA_SETUP: the pool requires MFA and the user has none yet.
 */
export type SignInChallenge = 'NEW_PASSWORD_REQUIRED' | 'SOFTWARE_TOKEN_MFA' | 'MFA_SETUP';

/** `locked`: Cognito's own lockout refused the attempt without checking the password. */
export type PasswordCheck = SignInStep | 'wrong' | 'reset-required' | 'locked';

/**
 * Cognito tells its lockout from a wrong password by the message alone (both are
 * NotAuthorizedException); with user-existence errors prevented, an unknown user is a wrong password.
 */
const LOCKED_OUT = /password attempts exceeded/i;

const CHALLENGES: ReadonlySet<string> = new Set<SignInChallenge>([
  'NEW_PASSWORD_REQUIRED',
  'SOFTWARE_TOKEN_MFA',
  'MFA_SETUP',
]);

function stepOf(result: {
  AuthenticationResult?: { AccessToken?: string };
  ChallengeName?: string;
  Session?: string;
}): SignInStep {
  const accessToken = result.AuthenticationResult?.AccessToken;
  if (accessToken) return { signedIn: { accessToken } };
  if (result.ChallengeName && CHALLENGES.has(result.ChallengeName) && result.Session) {
    return { challenge: result.ChallengeName as SignInChallenge, session: result.Session };
  }
  // SMS or e-mail MFA, a custom challenge: nothing this pool is configured for.
  throw new Error(`Cognito answered a sign-in with an unexpected challenge: ${result.ChallengeName ?? 'none'}`);
}

const poolAndClient = () => {
  const { id, clientId } = configuration().userPool;
  return { UserPoolId: required(id, ENV.userPoolId), ClientId: required(clientId, ENV.userPoolClientId) };
};

/**
 * ADMIN_USER_PASSWORD_AUTH: an IAM-signed call only the functions granted `userPool:login` can
 * make. The app client allows no flow a caller could start with its public id alone, so every
 * sign-in goes through the gateway's throttle.
 */
export async function checkPassword(email: string, password: string): Promise<PasswordCheck> {
  const { client, AdminInitiateAuthCommand } = await cognito();
  try {
    const result = await client.send(
      new AdminInitiateAuthCommand({
        ...poolAndClient(),
        AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    );
    return stepOf(result);
  } catch (error) {
    const { name, message } = error as { name?: string; message?: string };
    if (name === 'NotAuthorizedException' && LOCKED_OUT.test(message ?? '')) return 'locked';
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'wrong';
    if (name === 'PasswordResetRequiredException') return 'reset-required';
    throw error;
  }
}

/** `session-refused`: the challenge's session is unknown, used up, expired or not this user's. */
export type NewPasswordOutcome = SignInStep | 'session-refused' | { readonly policy: string };

/** Answers one challenge of a sign-in (AdminRespondToAuthChallenge), mapping Cognito's refusals. */
async function answerChallenge(
  email: string,
  challenge: SignInChallenge,
  session: string,
  responses: Record<string, string>,
): Promise<SignInStep | 'session-refused' | 'code-mismatch'> {
  const { client, AdminRespondToAuthChallengeCommand } = await cognito();
  try {
    const result = await client.send(
      new AdminRespondToAuthChallengeCommand({
        ...poolAndClient(),
        ChallengeName: challenge,
        Session: session,
        ChallengeResponses: { USERNAME: email, ...responses },
      }),
    );
    return stepOf(result);
  } catch (error) {
    const { name } = error as { name?: string };
    // ExpiredCodeException: an authenticator code already used once.
    if (name === 'CodeMismatchException' || name === 'ExpiredCodeException') return 'code-mismatch';
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'session-refused';
    if (name === 'InvalidParameterException') return 'session-refused';
    throw error;
  }
}

/**
 * Answers the new-password challenge of a sign-in with a temporary password: the user's
 * password becomes `newPassword`, permanent. A password the pool's policy refuses comes back
 * as Cognito's reason (which never repeats the password). An MFA challenge may follow.
 */
export async function completeNewPassword(
  email: string,
  session: string,
  newPassword: string,
): Promise<NewPasswordOutcome> {
  try {
    const outcome = await answerChallenge(email, 'NEW_PASSWORD_REQUIRED', session, { NEW_PASSWORD: newPassword });
    return outcome === 'code-mismatch' ? 'session-refused' : outcome;
  } catch (error) {
    const policy = policyRefusal(error);
    if (policy !== undefined) return { policy };
    throw error;
  }
}

/** `code-mismatch`: not the authenticator's code for now, or one already used. */
export type TotpOutcome = SignInStep | 'code-mismatch' | 'session-refused';

/** Answers the SOFTWARE_TOKEN_MFA challenge with the user's authenticator code. */
export function answerTotp(email: string, session: string, code: string): Promise<TotpOutcome> {
  return answerChallenge(email, 'SOFTWARE_TOKEN_MFA', session, { SOFTWARE_TOKEN_MFA_CODE: code });
}

/** Ends the MFA_SETUP challenge once a code of the new secret was verified in its session. */
export async function completeMfaSetup(email: string, session: string): Promise<SignInStep | 'session-refused'> {
  const outcome = await answerChallenge(email, 'MFA_SETUP', session, {});
  return outcome === 'code-mismatch' ? 'session-refused' : outcome;
}

/** Whose authenticator is being set up: a signed-in user's access token, or an MFA_SETUP challenge's session. */
export type TotpSetupAuthority = { readonly accessToken: string } | { readonly session: string };

const authorityOf = (by: TotpSetupAuthority) =>
  'accessToken' in by ? { AccessToken: by.accessToken } : { Session: by.session };

/**
 * A new authenticator secret (AssociateSoftwareToken): pending until a code of it is verified.
 * With a challenge session Cognito answers the session the verification must use.
 */
export async function associateTotp(by: TotpSetupAuthority): Promise<{ secret: string; session?: string }> {
  const { client, AssociateSoftwareTokenCommand } = await cognito();
  const result = await client.send(new AssociateSoftwareTokenCommand(authorityOf(by)));
  if (!result.SecretCode) throw new Error('Cognito associated no software token secret');
  return { secret: result.SecretCode, ...(result.Session ? { session: result.Session } : {}) };
}

/** A code of the pending secret makes it the user's authenticator (with a session: the session the set-up ends with). */
export async function verifyTotp(
  by: TotpSetupAuthority,
  code: string,
): Promise<{ readonly verified: { readonly session?: string } } | 'code-mismatch' | 'session-refused'> {
  const { client, VerifySoftwareTokenCommand } = await cognito();
  try {
    const result = await client.send(
      new VerifySoftwareTokenCommand({ ...authorityOf(by), UserCode: code, FriendlyDeviceName: 'authenticator' }),
    );
    if (result.Status !== 'SUCCESS') return 'code-mismatch';
    return { verified: result.Session ? { session: result.Session } : {} };
  } catch (error) {
    const { name } = error as { name?: string };
    if (name === 'EnableSoftwareTokenMFAException' || name === 'CodeMismatchException') return 'code-mismatch';
    if (name === 'ExpiredCodeException') return 'code-mismatch';
    if (name === 'NotAuthorizedException' || name === 'InvalidParameterException') return 'session-refused';
    throw error;
  }
}

/** Switches the user's authenticator on (and preferred) or off, with the user's own access token. */
export async function setTotpPreference(accessToken: string, enabled: boolean): Promise<void> {
  const { client, SetUserMFAPreferenceCommand } = await cognito();
  await client.send(
    new SetUserMFAPreferenceCommand({
      AccessToken: accessToken,
      SoftwareTokenMfaSettings: { Enabled: enabled, PreferredMfa: enabled },
    }),
  );
}

/** `wrong`: Cognito no longer takes the current password (changed meanwhile). */
export type PasswordChange = 'ok' | 'wrong' | { readonly policy: string };

/**
 * The user's own change of a permanent password: Cognito's ChangePassword with the access token
 * the sign-in just gave. The call is the user's own (no IAM permission sets a password).
 */
export async function changePassword(
  accessToken: string,
  password: string,
  newPassword: string,
): Promise<PasswordChange> {
  const { client, ChangePasswordCommand } = await cognito();
  try {
    await client.send(
      new ChangePasswordCommand({
        AccessToken: accessToken,
        PreviousPassword: password,
        ProposedPassword: newPassword,
      }),
    );
    return 'ok';
  } catch (error) {
    const policy = policyRefusal(error);
    if (policy !== undefined) return { policy };
    const { name } = error as { name?: string };
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'wrong';
    throw error;
  }
}

/** Cognito's reason a new password breaks the pool's policy (its shape is checked as a parameter). */
function policyRefusal(error: unknown): string | undefined {
  const { name, message = '' } = error as { name?: string; message?: string };
  if (name === 'InvalidPasswordException') return message;
  if (name === 'InvalidParameterException' && /password/i.test(message)) return message;
  return undefined;
}

/**
 * Creates the dashboard user with a generated temporary password, returned once to the
 * provisioning admin to hand over (no e-mail is sent: the partner owns that channel). The
 * first sign-in with it must choose the user's own password, so the admin never knows it.
 */
export async function createDashboardUser(email: string, name: string): Promise<string> {
  const password = generatePassword();
  const poolId = required(configuration().userPool.id, ENV.userPoolId);
  const { client, AdminCreateUserCommand } = await cognito();
  await client.send(
    new AdminCreateUserCommand({
      UserPoolId: poolId,
      Username: email,
      TemporaryPassword: password,
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
        { Name: 'name', Value: name },
      ],
    }),
  );
  return password;
}

/** 24 random characters plus one of each class the pool's password policy demands. */
export function generatePassword(): string {
  const pick = (alphabet: string) => alphabet[randomInt(alphabet.length)]!;
  return `${randomBytes(18).toString('base64url')}${pick('ABCDEFGHJKLMNPQRSTUVWXYZ')}${pick('abcdefghijkmnpqrstuvwxyz')}${pick('23456789')}${pick('!#%+=?@^')}`;
}
