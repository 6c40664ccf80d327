import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  AdminSetUserMFAPreferenceCommand,
  AdminSetUserPasswordCommand,
  AssociateSoftwareTokenCommand,
  CognitoIdentityProviderClient,
  SetUserMFAPreferenceCommand,
  VerifySoftwareTokenCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startCognitoStandIn, type PoolMfa } from '../../../local/standins/cognito.js';
import { base32Bytes, totp } from '../../support/authenticator.js';

/**
 * Software-token MFA in the Cognito stand-in, with codes computed by the tests' own TOTP
 * (test/support/authenticator.ts, checked here against RFC 6238's published vectors first),
 * never by the stand-in's.
 */

const UserPoolId = 'local_MfaPool1';
const ClientId = 'mfaclient';
const PASSWORD = 'Correct-Horse-9';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });

test.each([
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
])("the tests' own TOTP gives RFC 6238 Appendix B's SHA-1 code at T=%i", (seconds, code) => {
  expect(totp(Buffer.from('12345678901234567890'), seconds, 8)).toBe(code);
});

// ---- the stand-in ----

let dataDir: string;
let server: AwsJsonServer | undefined;
let client: CognitoIdentityProviderClient;
let now = 1_800_000_000_000;
let users = 0;

async function start(mfa?: PoolMfa): Promise<void> {
  server = await startCognitoStandIn({ dataDir, userPoolId: UserPoolId, clientId: ClientId, mfa, now: () => now });
  client = new CognitoIdentityProviderClient({ endpoint: server.url, region: 'us-east-1', credentials });
}

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cognito-mfa-'));
  await start();
});

afterEach(async () => {
  client.destroy();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const code = (secret: string | undefined, at = now) => totp(base32Bytes(secret ?? ''), at / 1000);

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

async function newUser(): Promise<string> {
  const email = `user${++users}@example.com`;
  await client.send(new AdminCreateUserCommand({ UserPoolId, Username: email, MessageAction: 'SUPPRESS' }));
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: email, Password: PASSWORD, Permanent: true }),
  );
  return email;
}

const signIn = (USERNAME: string) =>
  client.send(
    new AdminInitiateAuthCommand({
      UserPoolId,
      ClientId,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME, PASSWORD },
    }),
  );

const answer = (
  USERNAME: string,
  ChallengeName: 'SOFTWARE_TOKEN_MFA' | 'MFA_SETUP',
  Session?: string,
  totpCode?: string,
) =>
  client.send(
    new AdminRespondToAuthChallengeCommand({
      UserPoolId,
      ClientId,
      ChallengeName,
      Session,
      ChallengeResponses: { USERNAME, ...(totpCode === undefined ? {} : { SOFTWARE_TOKEN_MFA_CODE: totpCode }) },
    }),
  );

/** Associates, verifies and switches on a software token with the user's access token; returns its secret. */
async function enrol(email: string): Promise<string> {
  const AccessToken = (await signIn(email)).AuthenticationResult?.AccessToken;
  const { SecretCode } = await client.send(new AssociateSoftwareTokenCommand({ AccessToken }));
  await client.send(new VerifySoftwareTokenCommand({ AccessToken, UserCode: code(SecretCode) }));
  await client.send(
    new SetUserMFAPreferenceCommand({ AccessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } }),
  );
  now += 30_000;
  return SecretCode ?? '';
}

test('a software token is set up with an access token: associate, verify a code, switch it on', async () => {
  const email = await newUser();
  const AccessToken = (await signIn(email)).AuthenticationResult?.AccessToken;
  const { SecretCode } = await client.send(new AssociateSoftwareTokenCommand({ AccessToken }));
  expect(SecretCode).toMatch(/^[A-Z2-7]{32}$/);
  // Switching on before a code was verified is refused; so is a wrong code.
  const early = await errorOf(
    client.send(new SetUserMFAPreferenceCommand({ AccessToken, SoftwareTokenMfaSettings: { Enabled: true } })),
  );
  expect(early.name).toBe('InvalidParameterException');
  const wrongCode = String((Number(code(SecretCode)) + 1) % 1_000_000).padStart(6, '0');
  const wrong = await errorOf(client.send(new VerifySoftwareTokenCommand({ AccessToken, UserCode: wrongCode })));
  expect(wrong.name).toBe('EnableSoftwareTokenMFAException');
  // Verified but not yet on: a sign-in still needs no code.
  const verified = await client.send(new VerifySoftwareTokenCommand({ AccessToken, UserCode: code(SecretCode) }));
  expect(verified.Status).toBe('SUCCESS');
  expect((await signIn(email)).AuthenticationResult).toBeDefined();
  await client.send(
    new SetUserMFAPreferenceCommand({ AccessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } }),
  );
  const user = await client.send(new AdminGetUserCommand({ UserPoolId, Username: email }));
  expect(user.UserMFASettingList).toEqual(['SOFTWARE_TOKEN_MFA']);
  expect(user.PreferredMfaSetting).toBe('SOFTWARE_TOKEN_MFA');
  // The secret is kept (it must be), the password only as a hash.
  expect(readFileSync(join(dataDir, `cognito-${UserPoolId}.json`), 'utf8')).not.toContain(PASSWORD);
});

test('a user with a software token on is challenged; a code of this step or either neighbour answers, once', async () => {
  const email = await newUser();
  const secret = await enrol(email);
  for (const offset of [-30_000, 0, 30_000]) {
    now += 60_000;
    const challenge = await signIn(email);
    expect(challenge.ChallengeName).toBe('SOFTWARE_TOKEN_MFA');
    expect(challenge.AuthenticationResult).toBeUndefined();
    const done = await answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session, code(secret, now + offset));
    expect(done.AuthenticationResult?.AccessToken).toBeTruthy();
  }
  now += 60_000;
  const challenge = await signIn(email);
  for (const offset of [-60_000, 60_000]) {
    const outside = await errorOf(answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session, code(secret, now + offset)));
    expect(outside).toMatchObject({ name: 'CodeMismatchException', message: 'Invalid code received for user' });
  }
  // A wrong code leaves the session to answer again; the right one, used, is refused a second time.
  const used = code(secret);
  expect((await answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session, used)).AuthenticationResult).toBeDefined();
  const again = await signIn(email);
  expect((await errorOf(answer(email, 'SOFTWARE_TOKEN_MFA', again.Session, used))).name).toBe('CodeMismatchException');
  // Nor does a code of the previous step answer once a later one was used.
  now += 30_000;
  expect((await answer(email, 'SOFTWARE_TOKEN_MFA', again.Session, code(secret))).AuthenticationResult).toBeDefined();
  const third = await signIn(email);
  const previous = await errorOf(answer(email, 'SOFTWARE_TOKEN_MFA', third.Session, code(secret, now - 30_000)));
  expect(previous.name).toBe('CodeMismatchException');
});

test('the challenge session answers only its own challenge, for its own user, and without a code it is refused', async () => {
  const email = await newUser();
  const other = await newUser();
  const secret = await enrol(email);
  const challenge = await signIn(email);
  expect((await errorOf(answer(other, 'SOFTWARE_TOKEN_MFA', challenge.Session, code(secret)))).name).toBe(
    'NotAuthorizedException',
  );
  expect((await errorOf(answer(email, 'MFA_SETUP', challenge.Session))).name).toBe('NotAuthorizedException');
  expect((await errorOf(answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session))).message).toBe(
    'Missing required parameter SOFTWARE_TOKEN_MFA_CODE',
  );
  now += 3 * 60_000;
  expect((await errorOf(answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session, code(secret)))).message).toMatch(
    /session is expired/,
  );
});

test('switched off by the user or an administrator, the software token is no longer asked for', async () => {
  const email = await newUser();
  const secret = await enrol(email);
  const challenge = await signIn(email);
  const AccessToken = (await answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session, code(secret))).AuthenticationResult
    ?.AccessToken;
  await client.send(new SetUserMFAPreferenceCommand({ AccessToken, SoftwareTokenMfaSettings: { Enabled: false } }));
  expect((await signIn(email)).AuthenticationResult).toBeDefined();

  await client.send(
    new AdminSetUserMFAPreferenceCommand({
      UserPoolId,
      Username: email,
      SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
    }),
  );
  expect((await signIn(email)).ChallengeName).toBe('SOFTWARE_TOKEN_MFA');
  await client.send(
    new AdminSetUserMFAPreferenceCommand({ UserPoolId, Username: email, SoftwareTokenMfaSettings: { Enabled: false } }),
  );
  expect((await signIn(email)).AuthenticationResult).toBeDefined();
  const sms = await errorOf(
    client.send(
      new AdminSetUserMFAPreferenceCommand({ UserPoolId, Username: email, SMSMfaSettings: { Enabled: true } }),
    ),
  );
  expect(sms.name).toBe('InvalidParameterException');
});

test('a pool whose MFA is ON sends a user without it through MFA_SETUP, by session alone', async () => {
  client.destroy();
  await server?.close();
  await start('ON');
  const email = await newUser();
  const setup = await signIn(email);
  expect(setup.ChallengeName).toBe('MFA_SETUP');
  expect(setup.ChallengeParameters?.MFAS_CAN_SETUP).toContain('SOFTWARE_TOKEN_MFA');
  // Not answerable before a code is verified.
  expect((await errorOf(answer(email, 'MFA_SETUP', setup.Session))).name).toBe('InvalidParameterException');
  const associated = await client.send(new AssociateSoftwareTokenCommand({ Session: setup.Session }));
  expect(associated.Session).toBeTruthy();
  // The session Associate was given is used up; the one it answered takes the code.
  expect((await errorOf(client.send(new AssociateSoftwareTokenCommand({ Session: setup.Session })))).name).toBe(
    'NotAuthorizedException',
  );
  const wrong = await errorOf(
    client.send(new VerifySoftwareTokenCommand({ Session: associated.Session, UserCode: '000000' })),
  );
  expect(wrong.name).toBe('EnableSoftwareTokenMFAException');
  const verified = await client.send(
    new VerifySoftwareTokenCommand({ Session: associated.Session, UserCode: code(associated.SecretCode) }),
  );
  expect(verified.Status).toBe('SUCCESS');
  const done = await answer(email, 'MFA_SETUP', verified.Session);
  expect(done.AuthenticationResult?.AccessToken).toBeTruthy();
  // From now on the software token is asked for.
  now += 30_000;
  const next = await signIn(email);
  expect(next.ChallengeName).toBe('SOFTWARE_TOKEN_MFA');
  expect(
    (await answer(email, 'SOFTWARE_TOKEN_MFA', next.Session, code(associated.SecretCode))).AuthenticationResult,
  ).toBeDefined();
});

test('the totp-clock control moves only the clock codes are checked against, and refuses what it cannot do', async () => {
  const email = await newUser();
  const secret = await enrol(email);
  const control = (query: string, method = 'POST') =>
    fetch(`${server!.url}/__local/totp-clock${query}`, { method }).then(async (r) => [r.status, await r.json()]);
  // Two steps ahead is out of the window, until the checking clock is moved two steps.
  const ahead = code(secret, now + 60_000);
  const challenge = await signIn(email);
  expect((await errorOf(answer(email, 'SOFTWARE_TOKEN_MFA', challenge.Session, ahead))).name).toBe(
    'CodeMismatchException',
  );
  expect(await control('?advanceSteps=0')).toEqual([200, { offsetMs: 0 }]);
  expect(await control('?advanceSteps=2')).toEqual([200, { offsetMs: 60_000 }]);
  const moved = await signIn(email);
  expect((await answer(email, 'SOFTWARE_TOKEN_MFA', moved.Session, ahead)).AuthenticationResult).toBeDefined();
  expect(await control('?advanceSteps=11')).toEqual([400, { error: 'advanceSteps must be 0 to 10' }]);
  expect(await control('?advanceSteps=-1')).toEqual([400, { error: 'advanceSteps must be 0 to 10' }]);
  expect((await control('', 'GET'))[0]).toBe(405);
  expect((await fetch(`${server!.url}/__local/elsewhere`, { method: 'POST' })).status).toBe(404);
});
