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

/** Loaded on first use: only the login and provisioning functions ever talk to Cognito. */
async function cognito() {
  const module = await sdk();
  client ??= new module.CognitoIdentityProviderClient({ maxAttempts: 3 });
  return { client, ...module };
}

/**
 * `locked`: Cognito's own lockout refused the attempt without checking the password. A right
 * temporary password (one the admin API set) is the new-password challenge, with Cognito's
 * session string, the only thing that can answer it.
 */
export type PasswordCheck =
  'ok' | 'wrong' | 'reset-required' | 'locked' | { readonly newPasswordRequired: { readonly session: string } };

/**
 * Cognito tells its lockout from a wrong password by the message alone (both are
 * NotAuthorizedException); with user-existence errors prevented, an unknown user is a wrong password.
 */
const LOCKED_OUT = /password attempts exceeded/i;

/** USER_PASSWORD_AUTH with the public app client, as the browser's own call would be. */
async function passwordSignIn(email: string, password: string) {
  const { client, InitiateAuthCommand } = await cognito();
  return client.send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: required(configuration().userPool.clientId, ENV.userPoolClientId),
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
}

export async function checkPassword(email: string, password: string): Promise<PasswordCheck> {
  try {
    const result = await passwordSignIn(email, password);
    if (result.AuthenticationResult) return 'ok';
    if (result.ChallengeName === 'NEW_PASSWORD_REQUIRED' && result.Session) {
      return { newPasswordRequired: { session: result.Session } };
    }
    return 'reset-required';
  } catch (error) {
    const { name, message } = error as { name?: string; message?: string };
    if (name === 'NotAuthorizedException' && LOCKED_OUT.test(message ?? '')) return 'locked';
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'wrong';
    if (name === 'PasswordResetRequiredException') return 'reset-required';
    throw error;
  }
}

/** `session-refused`: the challenge's session is unknown, used up, expired or not this user's. */
export type NewPasswordOutcome = 'ok' | 'session-refused' | { readonly policy: string };

/**
 * Answers the new-password challenge of a sign-in with a temporary password: the user's
 * password becomes `newPassword`, permanent. A password the pool's policy refuses comes back
 * as Cognito's reason (which never repeats the password).
 */
export async function completeNewPassword(
  email: string,
  session: string,
  newPassword: string,
): Promise<NewPasswordOutcome> {
  const { client, RespondToAuthChallengeCommand } = await cognito();
  try {
    const result = await client.send(
      new RespondToAuthChallengeCommand({
        ClientId: required(configuration().userPool.clientId, ENV.userPoolClientId),
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session: session,
        ChallengeResponses: { USERNAME: email, NEW_PASSWORD: newPassword },
      }),
    );
    return result.AuthenticationResult ? 'ok' : 'session-refused';
  } catch (error) {
    const policy = policyRefusal(error);
    if (policy !== undefined) return { policy };
    const { name } = error as { name?: string };
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'session-refused';
    if (name === 'InvalidParameterException' || name === 'ExpiredCodeException') return 'session-refused';
    throw error;
  }
}

/** `wrong`: the current password no longer signs in (changed meanwhile, or a lockout). */
export type PasswordChange = 'ok' | 'wrong' | { readonly policy: string };

/**
 * The user's own change of a permanent password: a sign-in for an access token, then Cognito's
 * ChangePassword with it. Both calls are the user's own (no IAM permission sets a password); the
 * tokens are used once and dropped.
 */
export async function changePassword(email: string, password: string, newPassword: string): Promise<PasswordChange> {
  const { client, ChangePasswordCommand } = await cognito();
  try {
    const signedIn = await passwordSignIn(email, password);
    const accessToken = signedIn.AuthenticationResult?.AccessToken;
    if (!accessToken) return 'wrong';
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
