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

/** `locked`: Cognito's own lockout refused the attempt without checking the password. */
export type PasswordCheck = 'ok' | 'wrong' | 'reset-required' | 'locked';

/**
 * Cognito tells its lockout from a wrong password by the message alone (both are
 * NotAuthorizedException); with user-existence errors prevented, an unknown user is a wrong password.
 */
const LOCKED_OUT = /password attempts exceeded/i;

export async function checkPassword(email: string, password: string): Promise<PasswordCheck> {
  const { client, InitiateAuthCommand } = await cognito();
  try {
    const result = await client.send(
      new InitiateAuthCommand({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: required(configuration().userPool.clientId, ENV.userPoolClientId),
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    );
    if (result.AuthenticationResult) return 'ok';
    return 'reset-required';
  } catch (error) {
    const { name, message } = error as { name?: string; message?: string };
    if (name === 'NotAuthorizedException' && LOCKED_OUT.test(message ?? '')) return 'locked';
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'wrong';
    if (name === 'PasswordResetRequiredException') return 'reset-required';
    throw error;
  }
}

/**
 * Creates the dashboard user with a generated password, returned once to the provisioning
 * admin to hand over (no e-mail is sent: the partner owns that channel).
 */
export async function createDashboardUser(email: string, name: string): Promise<string> {
  const password = generatePassword();
  const poolId = required(configuration().userPool.id, ENV.userPoolId);
  const { client, AdminCreateUserCommand, AdminSetUserPasswordCommand } = await cognito();
  await client.send(
    new AdminCreateUserCommand({
      UserPoolId: poolId,
      Username: email,
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
        { Name: 'name', Value: name },
      ],
    }),
  );
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId: poolId, Username: email, Password: password, Permanent: true }),
  );
  return password;
}

/** 24 random characters plus one of each class the pool's password policy demands. */
export function generatePassword(): string {
  const pick = (alphabet: string) => alphabet[randomInt(alphabet.length)]!;
  return `${randomBytes(18).toString('base64url')}${pick('ABCDEFGHJKLMNPQRSTUVWXYZ')}${pick('abcdefghijkmnpqrstuvwxyz')}${pick('23456789')}${pick('!#%+=?@^')}`;
}
