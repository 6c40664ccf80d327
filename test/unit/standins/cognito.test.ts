import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  AdminSetUserPasswordCommand,
  ChangePasswordCommand,
  CognitoIdentityProviderClient,
  GetUserCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startCognitoStandIn } from '../../../local/standins/cognito.js';

const UserPoolId = 'local_TestPool1';
const ClientId = 'localclient123';
const EMAIL = 'Ada@Example.com';
const PASSWORD = 'Correct-Horse-9';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
// The stand-in accepts what this process's AWS SDK clients sign with.
Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });

let dataDir: string;
let server: AwsJsonServer | undefined;
let client: CognitoIdentityProviderClient;
/** Moves the stand-in's clock ahead of the real one. */
let skipMs = 0;

async function start(): Promise<void> {
  server = await startCognitoStandIn({
    dataDir,
    userPoolId: UserPoolId,
    clientId: ClientId,
    now: () => Date.now() + skipMs,
  });
  client = new CognitoIdentityProviderClient({ endpoint: server.url, region: 'us-east-1', credentials });
}

async function stop(): Promise<void> {
  client?.destroy();
  await server?.close();
  server = undefined;
}

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

const createUser = (TemporaryPassword = 'Temporary-Pass-1') =>
  client.send(
    new AdminCreateUserCommand({
      UserPoolId,
      Username: EMAIL,
      UserAttributes: [
        { Name: 'email', Value: EMAIL },
        { Name: 'email_verified', Value: 'true' },
        { Name: 'name', Value: 'Ada' },
      ],
      MessageAction: 'SUPPRESS',
      TemporaryPassword,
    }),
  );

const login = (USERNAME: string, PASSWORD: string) =>
  client.send(
    new AdminInitiateAuthCommand({
      UserPoolId,
      ClientId,
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME, PASSWORD },
    }),
  );

function claims(jwt: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from((jwt ?? '').split('.')[1] ?? '', 'base64url').toString('utf8'));
}

beforeEach(async () => {
  skipMs = 0;
  dataDir = mkdtempSync(join(tmpdir(), 'cognito-standin-'));
  await start();
});

afterEach(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('AdminCreateUser creates a user awaiting a new password, with a sub', async () => {
  const { User } = await createUser();
  expect(User?.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
  expect(User?.Enabled).toBe(true);
  const attributes = Object.fromEntries((User?.Attributes ?? []).map((a) => [a.Name, a.Value]));
  expect(attributes.sub).toMatch(/^[0-9a-f-]{36}$/);
  expect(User?.Username).toBe(attributes.sub);
  expect(attributes).toMatchObject({ email: EMAIL, email_verified: 'true', name: 'Ada' });
  expect(User?.UserCreateDate).toBeInstanceOf(Date);
});

test('AdminCreateUser rejects an existing email in any case, and a non-email username', async () => {
  await createUser();
  const dup = await errorOf(
    client.send(
      new AdminCreateUserCommand({
        UserPoolId,
        Username: EMAIL.toUpperCase(),
        MessageAction: 'SUPPRESS',
        TemporaryPassword: 'Temporary-Pass-1',
      }),
    ),
  );
  expect(dup.name).toBe('UsernameExistsException');
  const notEmail = await errorOf(
    client.send(new AdminCreateUserCommand({ UserPoolId, Username: 'ada', MessageAction: 'SUPPRESS' })),
  );
  expect(notEmail.name).toBe('InvalidParameterException');
});

test('AdminGetUser finds users by email or sub; unknown users are UserNotFoundException', async () => {
  const { User } = await createUser();
  const byEmail = await client.send(new AdminGetUserCommand({ UserPoolId, Username: EMAIL.toLowerCase() }));
  expect(byEmail.Username).toBe(User?.Username);
  expect(byEmail.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
  expect(byEmail.UserAttributes).toEqual(User?.Attributes);
  const bySub = await client.send(new AdminGetUserCommand({ UserPoolId, Username: User?.Username }));
  expect(bySub.Username).toBe(User?.Username);

  const err = await errorOf(client.send(new AdminGetUserCommand({ UserPoolId, Username: 'nobody@example.com' })));
  expect(err.name).toBe('UserNotFoundException');
  const setErr = await errorOf(
    client.send(new AdminSetUserPasswordCommand({ UserPoolId, Username: 'nobody@example.com', Password: PASSWORD })),
  );
  expect(setErr.name).toBe('UserNotFoundException');
});

test('a wrong pool or client id is ResourceNotFoundException', async () => {
  const pool = await errorOf(client.send(new AdminGetUserCommand({ UserPoolId: 'local_Other', Username: EMAIL })));
  expect(pool.name).toBe('ResourceNotFoundException');
  const app = await errorOf(
    client.send(
      new AdminInitiateAuthCommand({
        UserPoolId,
        ClientId: 'other',
        AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: EMAIL, PASSWORD },
      }),
    ),
  );
  expect(app.name).toBe('ResourceNotFoundException');
});

test('a temporary password leads to NEW_PASSWORD_REQUIRED, which RespondToAuthChallenge completes', async () => {
  await createUser();
  const challenge = await login(EMAIL, 'Temporary-Pass-1');
  expect(challenge.ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
  expect(challenge.Session).toBeTruthy();
  expect(challenge.AuthenticationResult).toBeUndefined();

  const weak = await errorOf(
    client.send(
      new AdminRespondToAuthChallengeCommand({
        UserPoolId,
        ClientId,
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session: challenge.Session,
        ChallengeResponses: { USERNAME: EMAIL, NEW_PASSWORD: 'short' },
      }),
    ),
  );
  expect(weak.name).toBe('InvalidPasswordException');

  const done = await client.send(
    new AdminRespondToAuthChallengeCommand({
      UserPoolId,
      ClientId,
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      Session: challenge.Session,
      ChallengeResponses: { USERNAME: EMAIL, NEW_PASSWORD: PASSWORD },
    }),
  );
  expect(done.AuthenticationResult?.AccessToken).toBeTruthy();
  expect((await client.send(new AdminGetUserCommand({ UserPoolId, Username: EMAIL }))).UserStatus).toBe('CONFIRMED');
});

test('a new-password session answers once, for its own user, within 3 minutes', async () => {
  await createUser();
  await client.send(
    new AdminCreateUserCommand({
      UserPoolId,
      Username: 'other@example.com',
      MessageAction: 'SUPPRESS',
      TemporaryPassword: 'Temporary-Pass-2',
    }),
  );
  const answer = (Session: string | undefined, USERNAME = EMAIL, NEW_PASSWORD = PASSWORD) =>
    client.send(
      new AdminRespondToAuthChallengeCommand({
        UserPoolId,
        ClientId,
        ChallengeName: 'NEW_PASSWORD_REQUIRED',
        Session,
        ChallengeResponses: { USERNAME, NEW_PASSWORD },
      }),
    );
  const first = (await login(EMAIL, 'Temporary-Pass-1')).Session;
  expect((await errorOf(answer('not-a-session-at-all-0123456789'))).name).toBe('NotAuthorizedException');
  expect((await errorOf(answer(first, 'other@example.com'))).name).toBe('NotAuthorizedException');
  const withoutUser = new AdminRespondToAuthChallengeCommand({
    UserPoolId,
    ClientId,
    ChallengeName: 'NEW_PASSWORD_REQUIRED',
    Session: first,
    ChallengeResponses: { NEW_PASSWORD: PASSWORD },
  });
  expect((await errorOf(client.send(withoutUser))).message).toBe('Missing required parameter USERNAME');
  skipMs = 3 * 60_000;
  expect((await errorOf(answer(first))).message).toMatch(/session is expired/);
  skipMs = 0;

  const second = (await login(EMAIL, 'Temporary-Pass-1')).Session;
  expect((await answer(second)).AuthenticationResult).toBeDefined();
  expect((await errorOf(answer(second, EMAIL, 'Another-Pass-22'))).name).toBe('NotAuthorizedException');
  expect((await login(EMAIL, PASSWORD)).AuthenticationResult).toBeDefined();
  expect((await errorOf(login(EMAIL, 'Temporary-Pass-1'))).name).toBe('NotAuthorizedException');
});

test('a permanent password signs in with tokens carrying the sub', async () => {
  const { User } = await createUser();
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: PASSWORD, Permanent: true }),
  );
  expect((await client.send(new AdminGetUserCommand({ UserPoolId, Username: EMAIL }))).UserStatus).toBe('CONFIRMED');

  const result = await login(EMAIL.toLowerCase(), PASSWORD);
  expect(result.ChallengeName).toBeUndefined();
  const auth = result.AuthenticationResult;
  expect(auth?.ExpiresIn).toBe(3600);
  expect(auth?.TokenType).toBe('Bearer');
  expect(auth?.RefreshToken).toBeTruthy();
  expect(claims(auth?.IdToken)).toMatchObject({ sub: User?.Username, email: EMAIL, token_use: 'id', aud: ClientId });
  expect(claims(auth?.AccessToken)).toMatchObject({ sub: User?.Username, token_use: 'access', client_id: ClientId });

  const me = await client.send(new GetUserCommand({ AccessToken: auth?.AccessToken }));
  expect(me.Username).toBe(User?.Username);
  const forged = `${auth?.AccessToken?.slice(0, -4)}AAAA`;
  expect((await errorOf(client.send(new GetUserCommand({ AccessToken: forged })))).name).toBe('NotAuthorizedException');
});

test('ChangePassword takes the access token and the current password, and checks the policy', async () => {
  await createUser();
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: PASSWORD, Permanent: true }),
  );
  const AccessToken = (await login(EMAIL, PASSWORD)).AuthenticationResult?.AccessToken;
  const change = (PreviousPassword: string, ProposedPassword: string, token = AccessToken) =>
    client.send(new ChangePasswordCommand({ AccessToken: token, PreviousPassword, ProposedPassword }));
  expect((await errorOf(change('Wrong-Password-1', 'Brand-New-Pass-2'))).name).toBe('NotAuthorizedException');
  expect((await errorOf(change(PASSWORD, 'weak'))).name).toBe('InvalidPasswordException');
  expect((await errorOf(change(PASSWORD, 'Brand-New-Pass-2', 'not.a.token'))).name).toBe('NotAuthorizedException');
  await change(PASSWORD, 'Brand-New-Pass-2');
  expect((await errorOf(login(EMAIL, PASSWORD))).name).toBe('NotAuthorizedException');
  expect((await login(EMAIL, 'Brand-New-Pass-2')).AuthenticationResult).toBeDefined();
  skipMs = 3600_000;
  expect((await errorOf(change('Brand-New-Pass-2', 'Brand-New-Pass-3'))).message).toBe('Access Token has expired');
});

test('a non-permanent AdminSetUserPassword puts the user back to NEW_PASSWORD_REQUIRED', async () => {
  await createUser();
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: PASSWORD, Permanent: true }),
  );
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: 'Another-Temp-2', Permanent: false }),
  );
  expect((await client.send(new AdminGetUserCommand({ UserPoolId, Username: EMAIL }))).UserStatus).toBe(
    'FORCE_CHANGE_PASSWORD',
  );
  expect((await login(EMAIL, 'Another-Temp-2')).ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
});

test('wrong passwords and unknown users get the same NotAuthorizedException', async () => {
  await createUser();
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: PASSWORD, Permanent: true }),
  );
  for (const [user, password] of [
    [EMAIL, 'Wrong-Password-1'],
    ['nobody@example.com', PASSWORD],
  ] as const) {
    const err = await errorOf(login(user, password));
    expect(err.name).toBe('NotAuthorizedException');
    expect(err.message).toBe('Incorrect username or password.');
  }
});

test("the client's explicit auth flows are enforced: by default only the admin password flow signs in", async () => {
  await createUser();
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: PASSWORD, Permanent: true }),
  );
  const initiate = (AuthFlow: 'USER_PASSWORD_AUTH' | 'USER_SRP_AUTH' | 'CUSTOM_AUTH') =>
    errorOf(
      client.send(
        new InitiateAuthCommand({ ClientId, AuthFlow, AuthParameters: { USERNAME: EMAIL, PASSWORD, SRP_A: 'x' } }),
      ),
    );
  for (const flow of ['USER_PASSWORD_AUTH', 'USER_SRP_AUTH', 'CUSTOM_AUTH'] as const) {
    const refused = await initiate(flow);
    expect(refused.name).toBe('InvalidParameterException');
    expect(refused.message).toBe(`${flow} flow not enabled for this client`);
  }
  // The same password through the admin flow, signed with the credentials IAM grants it to.
  expect((await login(EMAIL, PASSWORD)).AuthenticationResult).toBeDefined();

  // A client that allows the password flow but not the admin one: the other way round.
  await stop();
  server = await startCognitoStandIn({
    dataDir,
    userPoolId: UserPoolId,
    clientId: ClientId,
    clientAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
  });
  client = new CognitoIdentityProviderClient({ endpoint: server.url, region: 'us-east-1', credentials });
  const viaClient = await client.send(
    new InitiateAuthCommand({
      ClientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: EMAIL, PASSWORD },
    }),
  );
  expect(viaClient.AuthenticationResult).toBeDefined();
  const admin = await errorOf(login(EMAIL, PASSWORD));
  expect(admin).toMatchObject({ name: 'InvalidParameterException', message: 'Auth flow not enabled for this client' });
});

test('a client flow answers its new-password challenge with RespondToAuthChallenge, unsigned', async () => {
  await stop();
  server = await startCognitoStandIn({
    dataDir,
    userPoolId: UserPoolId,
    clientId: ClientId,
    clientAuthFlows: ['ALLOW_USER_PASSWORD_AUTH'],
  });
  client = new CognitoIdentityProviderClient({ endpoint: server.url, region: 'us-east-1', credentials });
  await createUser();
  const challenge = await client.send(
    new InitiateAuthCommand({
      ClientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: EMAIL, PASSWORD: 'Temporary-Pass-1' },
    }),
  );
  const done = await client.send(
    new RespondToAuthChallengeCommand({
      ClientId,
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      Session: challenge.Session,
      ChallengeResponses: { USERNAME: EMAIL, NEW_PASSWORD: PASSWORD },
    }),
  );
  expect(done.AuthenticationResult?.AccessToken).toBeTruthy();
});

test.each([
  ['Sh0rt-Pass!', 'Password not long enough'],
  ['NO-LOWER-CASE-1', 'Password must have lowercase characters'],
  ['no-upper-case-1', 'Password must have uppercase characters'],
  ['No-Digits-Here-', 'Password must have numeric characters'],
  ['NoSymbolsHere123', 'Password must have symbol characters'],
])('the password policy rejects %s', async (password, rule) => {
  await createUser();
  const err = await errorOf(
    client.send(new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: password, Permanent: true })),
  );
  expect(err.name).toBe('InvalidPasswordException');
  expect(err.message).toBe(`Password did not conform with policy: ${rule}`);
});

test('the password policy also applies to temporary passwords; spaces inside count as symbols', async () => {
  expect((await errorOf(createUser('weak'))).name).toBe('InvalidPasswordException');
  await createUser('Spaces Are Ok 1');
  expect((await login(EMAIL, 'Spaces Are Ok 1')).ChallengeName).toBe('NEW_PASSWORD_REQUIRED');
});

test('users, passwords and tokens survive a restart; passwords are stored as scrypt hashes', async () => {
  const { User } = await createUser();
  await client.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: EMAIL, Password: PASSWORD, Permanent: true }),
  );
  const before = await login(EMAIL, PASSWORD);
  await stop();

  const { readFileSync } = await import('node:fs');
  const stored = readFileSync(join(dataDir, `cognito-${UserPoolId}.json`), 'utf8');
  expect(stored).not.toContain(PASSWORD);
  expect(stored).toContain('"passwordHash": "scrypt$');

  await start();
  const after = await login(EMAIL, PASSWORD);
  expect(claims(after.AuthenticationResult?.IdToken).sub).toBe(User?.Username);
  const me = await client.send(new GetUserCommand({ AccessToken: before.AuthenticationResult?.AccessToken }));
  expect(me.Username).toBe(User?.Username);
  expect((await errorOf(createUser())).name).toBe('UsernameExistsException');
});
