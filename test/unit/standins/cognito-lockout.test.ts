import {
  AdminCreateUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startCognitoStandIn } from '../../../local/standins/cognito.js';

/** Cognito's documented sign-in lockout, as the stand-in models it, on an injected clock. */

/** Cognito resets the count after 15 minutes without an attempt. */
const QUIET_MS = 15 * 60_000;

const UserPoolId = 'local_LockoutPool1';
const ClientId = 'lockoutclient';
const PASSWORD = 'Correct-Horse-9';
const WRONG = 'Wrong-Password-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
// The stand-in accepts what this process's AWS SDK clients sign with.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });

let dataDir: string;
let server: AwsJsonServer;
let client: CognitoIdentityProviderClient;
let now = 1_800_000_000_000;
let users = 0;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cognito-lockout-'));
  // The password flow allowed beside the admin one, to show the lockout holds for both.
  server = await startCognitoStandIn({
    dataDir,
    userPoolId: UserPoolId,
    clientId: ClientId,
    clientAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_ADMIN_USER_PASSWORD_AUTH'],
    now: () => now,
  });
  client = new CognitoIdentityProviderClient({ endpoint: server.url, region: 'us-east-1', credentials });
});

afterAll(async () => {
  client.destroy();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function newUser(): Promise<string> {
  const email = `user${++users}@example.com`;
  await client.send(new AdminCreateUserCommand({ UserPoolId, Username: email, MessageAction: 'SUPPRESS' }));
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: email, Password: PASSWORD, Permanent: true }),
  );
  return email;
}

type Flow = 'InitiateAuth' | 'AdminInitiateAuth';

/** The answer as `ok` or the error's message. */
async function signIn(email: string, password: string, flow: Flow = 'InitiateAuth'): Promise<string> {
  const AuthParameters = { USERNAME: email, PASSWORD: password };
  try {
    const result =
      flow === 'InitiateAuth'
        ? await client.send(new InitiateAuthCommand({ ClientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters }))
        : await client.send(
            new AdminInitiateAuthCommand({
              UserPoolId,
              ClientId,
              AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
              AuthParameters,
            }),
          );
    return result.AuthenticationResult ? 'ok' : 'challenge';
  } catch (error) {
    expect((error as Error).name).toBe('NotAuthorizedException');
    return (error as Error).message;
  }
}

const INCORRECT = 'Incorrect username or password.';
const EXCEEDED = 'Password attempts exceeded';

async function fail(email: string, times: number, flow: Flow = 'InitiateAuth'): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < times; i++) answers.push(await signIn(email, WRONG, flow));
  return answers;
}

test.each<Flow>(['InitiateAuth', 'AdminInitiateAuth'])(
  '%s: five wrong passwords, then every attempt is refused for 1 s, the right password too',
  async (flow) => {
    const email = await newUser();
    expect(await fail(email, 5, flow)).toEqual(Array(5).fill(INCORRECT));
    expect(await signIn(email, WRONG, flow)).toBe(EXCEEDED);
    expect(await signIn(email, PASSWORD, flow)).toBe(EXCEEDED);
    now += 999;
    expect(await signIn(email, PASSWORD, flow)).toBe(EXCEEDED);
    now += 1;
    expect(await signIn(email, PASSWORD, flow)).toBe('ok');
  },
);

test('the lock doubles with each failure after it, up to 15 minutes; attempts during a lock do not lengthen it', async () => {
  const email = await newUser();
  await fail(email, 5);
  const expected = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900].map((s) => s * 1000);
  for (const lockMs of expected) {
    expect(await fail(email, 3)).toEqual(Array(3).fill(EXCEEDED));
    now += lockMs - 1;
    expect(await signIn(email, PASSWORD)).toBe(EXCEEDED);
    now += 1;
    expect(await signIn(email, WRONG)).toBe(INCORRECT);
  }
});

test('a successful sign-in after a lock starts the count again', async () => {
  const email = await newUser();
  await fail(email, 5);
  now += 1_000;
  expect(await signIn(email, PASSWORD)).toBe('ok');
  expect(await fail(email, 5)).toEqual(Array(5).fill(INCORRECT));
  expect(await signIn(email, WRONG)).toBe(EXCEEDED);
});

test('15 minutes without any attempt start the count again; refused attempts keep it going', async () => {
  const email = await newUser();
  await fail(email, 5); // locked 1 s
  now += QUIET_MS - 1;
  expect(await signIn(email, WRONG)).toBe(INCORRECT); // the 6th failure: locked 2 s
  now += 1_000;
  expect(await signIn(email, WRONG)).toBe(EXCEEDED); // refused, but an attempt
  now += QUIET_MS - 1;
  expect(await signIn(email, WRONG)).toBe(INCORRECT); // the 7th: locked 4 s
  expect(await signIn(email, PASSWORD)).toBe(EXCEEDED);
  now += QUIET_MS;
  expect(await fail(email, 5)).toEqual(Array(5).fill(INCORRECT));
  expect(await signIn(email, PASSWORD)).toBe(EXCEEDED);
});

test('the lock is per user; an unknown user is never locked, only ever a wrong password', async () => {
  const locked = await newUser();
  const other = await newUser();
  await fail(locked, 5);
  expect(await signIn(locked, PASSWORD)).toBe(EXCEEDED);
  expect(await signIn(other, PASSWORD)).toBe('ok');
  expect(await fail('nobody@example.com', 60)).toEqual(Array(60).fill(INCORRECT));
  expect(await signIn('nobody@example.com', PASSWORD, 'AdminInitiateAuth')).toBe(INCORRECT);
});
