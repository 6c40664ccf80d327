import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startCognitoStandIn } from '../../../local/standins/cognito.js';
import { LOGIN_LIMITS } from '../../../lambdas/identity/login-limits.js';
import { dynamoLoginThrottleStore } from '../../../lambdas/identity/login-throttle.js';
import {
  deploymentDirectory,
  deploymentPendingMfa,
  signIn,
  SignInError,
  type SignInDeps,
} from '../../../lambdas/identity/sign-in.js';
import {
  checkPassword,
  completeNewPassword,
  createDashboardUser,
  type PasswordCheck,
} from '../../../lambdas/identity/user-directory.js';
import { createAccount, getAccountIdByEmail } from '../../../lambdas/store/accounts.js';
import { deleteSessionsOf, getLiveSession, putSession } from '../../../lambdas/store/sessions.js';

/**
 * Sign-in against the Cognito stand-in and dynalite, on one hand-driven clock. The user
 * directory is the real one, watched: what it was asked is part of what must not differ
 * between an unknown email and a wrong password, or between their locks.
 */

const db = useLocalDynamoDb('signin');
let now = 1_800_000_000_000;
let cognito: AwsJsonServer;
let cognitoDir: string;

beforeAll(async () => {
  process.env['IDENTITY_TABLE'] = db().tableNames.identity;
  cognitoDir = mkdtempSync(join(tmpdir(), 'signin-cognito-'));
  cognito = await startCognitoStandIn({
    dataDir: cognitoDir,
    userPoolId: 'local_SignInPool',
    clientId: 'signin-client',
    now: () => now,
  });
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognito.url,
    USER_POOL_ID: 'local_SignInPool',
    USER_POOL_CLIENT_ID: 'signin-client',
  });
});

afterAll(async () => {
  await cognito.close();
  rmSync(cognitoDir, { recursive: true, force: true });
});

let users = 0;
let ips = 0;
const freshIp = () => `10.1.${(++ips >> 8) & 255}.${ips & 255}`;

/** An account whose user has already replaced the admin-set password with `password`. */
async function newAccount(): Promise<{ email: string; password: string; accountId: string }> {
  const email = `user${++users}@example.com`;
  const temporary = await createDashboardUser(email, 'Test');
  const { accountId } = await createAccount(email, 'Test');
  const check = await checkPassword(email, temporary);
  if (typeof check !== 'object' || !('challenge' in check)) throw new Error(`expected the new-password challenge`);
  const password = `${temporary}-own`;
  expect(await completeNewPassword(email, check.session, password)).toMatchObject({ signedIn: {} });
  return { email, password, accountId };
}

/** The real directory, with every question it was asked and every answer it gave. */
function watchedDirectory() {
  const asked: { email: string; password: string; answer: Exclude<PasswordCheck, object> | 'right' }[] = [];
  const ended: string[] = [];
  const deps: SignInDeps = {
    directory: {
      ...deploymentDirectory,
      checkPassword: async (email, password) => {
        const answer = await checkPassword(email, password);
        // Tokens and sessions differ per call; what the directory said is the same.
        asked.push({ email, password, answer: typeof answer === 'object' ? 'right' : answer });
        return answer;
      },
    },
    pendingMfa: deploymentPendingMfa,
    totpIssuer: 'Sign-in test',
    endSessions: async (accountId) => {
      ended.push(accountId);
      return deleteSessionsOf(accountId);
    },
    findAccountId: getAccountIdByEmail,
    throttle: { store: dynamoLoginThrottleStore, now: () => now, limits: LOGIN_LIMITS },
  };
  return { deps, asked, ended };
}

/** A session of the account as the login route stores one; its id hash. */
async function startSession(accountId: string, email: string): Promise<string> {
  const idHash = `session-${++users}`;
  await putSession(idHash, { accountId, email, createdAt: new Date(now).toISOString(), expiresAt: now / 1000 + 3600 });
  return idHash;
}

/** A sign-in with a new password, its refusal as data. */
async function attemptWith(email: string, password: string, newPassword: string, ip: string, deps: SignInDeps) {
  try {
    return { signedIn: (await signIn(email, password, ip, deps, { newPassword })).accountId };
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    return { kind: error.kind, field: error.field };
  }
}

/** The refusal as data, or the account signed in to. */
async function attempt(email: string, password: string, ip: string, deps: SignInDeps) {
  try {
    return { signedIn: (await signIn(email, password, ip, deps)).accountId };
  } catch (error) {
    if (!(error instanceof SignInError)) throw error;
    return { kind: error.kind, message: error.message, retryAfterMs: error.retryAfterMs };
  }
}

test('an admin-set password signs in only together with the new password that replaces it', async () => {
  const email = `first${++users}@example.com`;
  const temporary = await createDashboardUser(email, 'First');
  const { accountId } = await createAccount(email, 'First');
  const { deps, asked } = watchedDirectory();
  const ip = freshIp();
  const first = await attempt(email, temporary, ip, deps);
  expect(first).toMatchObject({ kind: 'password_change_required' });
  expect(first.message).not.toContain(temporary);
  expect(await attemptWith(email, temporary, 'short', ip, deps)).toEqual({
    kind: 'password_rejected',
    field: 'newPassword',
  });
  expect(await attemptWith(email, temporary, 'Own-Password-123', ip, deps)).toEqual({ signedIn: accountId });
  // Replaced: the temporary password is gone, the new one signs in, and no longer with a newPassword.
  expect(await attempt(email, temporary, ip, deps)).toMatchObject({ kind: 'wrong_credentials' });
  expect(await attempt(email, 'Own-Password-123', ip, deps)).toEqual({ signedIn: accountId });
  // Right passwords, challenged or not, are not failures: only the one wrong attempt counted.
  expect(asked.filter((q) => q.answer === 'wrong')).toHaveLength(1);
  for (let i = 0; i < 4; i++) await attempt(email, 'Wrong-Password-1', ip, deps);
  expect(await attempt(email, 'Own-Password-123', ip, deps)).toEqual({ signedIn: accountId });
});

test('a permanent password is changed with the current one beside the new one, ending every session', async () => {
  const { email, password, accountId } = await newAccount();
  const { deps, ended } = watchedDirectory();
  const ip = freshIp();
  const other = await startSession(accountId, email);
  const rejected = await attemptWith(email, password, 'alllowercase-and-long', ip, deps);
  expect(rejected).toEqual({ kind: 'password_rejected', field: 'newPassword' });
  expect(ended).toEqual([]);
  expect(await getLiveSession(other, now)).toBeDefined();
  expect(await attemptWith(email, 'Wrong-Password-1', 'Own-Password-456', ip, deps)).toMatchObject({
    kind: 'wrong_credentials',
  });
  expect(await attemptWith(email, password, 'Own-Password-456', ip, deps)).toEqual({ signedIn: accountId });
  expect(ended).toEqual([accountId]);
  expect(await getLiveSession(other, now)).toBeUndefined();
  expect(await attempt(email, password, ip, deps)).toMatchObject({ kind: 'wrong_credentials' });
  expect(await attempt(email, 'Own-Password-456', ip, deps)).toEqual({ signedIn: accountId });
});

test('an admin-set password is throttled like any other', async () => {
  const email = `guessed${++users}@example.com`;
  const temporary = await createDashboardUser(email, 'Guessed');
  await createAccount(email, 'Guessed');
  const { deps } = watchedDirectory();
  for (let i = 0; i < 5; i++) await attemptWith(email, 'Wrong-Password-1', 'Own-Password-123', freshIp(), deps);
  expect(await attemptWith(email, temporary, 'Own-Password-123', freshIp(), deps)).toMatchObject({
    kind: 'throttled',
  });
});

test('an unknown email and a wrong password: the same refusal, the same questions, the same lock', async () => {
  const known = await newAccount();
  const unknownEmail = `nobody${users}@example.com`;
  const outcomes = [];
  for (const email of [known.email, unknownEmail]) {
    const { deps, asked } = watchedDirectory();
    const ip = freshIp();
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await attempt(email, 'Wrong-Password-1', ip, deps));
    outcomes.push({ answers, asked: asked.map((q) => ({ ...q, email: q.email === email ? 'the email' : q.email })) });
  }
  const [forKnown, forUnknown] = outcomes;
  expect(forKnown).toEqual(forUnknown);
  expect(forKnown!.answers).toEqual([
    ...Array(5).fill({ kind: 'wrong_credentials', message: 'Incorrect email or password', retryAfterMs: undefined }),
    ...Array(3).fill({ kind: 'throttled', message: 'Too many sign-in attempts', retryAfterMs: 1_000 }),
  ]);
  // Every attempt let through was put to the directory; none while locked.
  expect(forKnown!.asked).toEqual(Array(5).fill({ email: 'the email', password: 'Wrong-Password-1', answer: 'wrong' }));
});

test('the right password is refused while the account is locked, and signs in once the lock passes', async () => {
  const { email, password, accountId } = await newAccount();
  const { deps, asked } = watchedDirectory();
  for (let i = 0; i < 5; i++) await attempt(email, 'Wrong-Password-1', freshIp(), deps);
  expect(await attempt(email, password, freshIp(), deps)).toMatchObject({ kind: 'throttled', retryAfterMs: 1_000 });
  now += 999;
  expect(await attempt(email, password, freshIp(), deps)).toMatchObject({ kind: 'throttled', retryAfterMs: 1 });
  expect(asked).toHaveLength(5);
  now += 1;
  expect(await attempt(email, password, freshIp(), deps)).toEqual({ signedIn: accountId });
  // Signed in: the count starts again.
  for (let i = 0; i < 5; i++) {
    expect(await attempt(email, 'Wrong-Password-1', freshIp(), deps)).toMatchObject({ kind: 'wrong_credentials' });
  }
});

test('a sign-in after a few failures, within the allowance, works', async () => {
  const { email, password, accountId } = await newAccount();
  const { deps } = watchedDirectory();
  const ip = freshIp();
  for (let i = 0; i < 4; i++) await attempt(email, 'Wrong-Password-1', ip, deps);
  expect(await attempt(email, password, ip, deps)).toEqual({ signedIn: accountId });
});

test("Cognito's own lock is the same refusal as the gateway's", async () => {
  const { email, password } = await newAccount();
  // Five failures that reached Cognito without passing the gateway's count.
  for (let i = 0; i < 5; i++) expect(await checkPassword(email, 'Wrong-Password-1')).toBe('wrong');
  expect(await checkPassword(email, password)).toBe('locked');
  const { deps, asked } = watchedDirectory();
  expect(await attempt(email, password, freshIp(), deps)).toEqual({
    kind: 'throttled',
    message: 'Too many sign-in attempts',
    retryAfterMs: 1_000,
  });
  expect(asked.map((q) => q.answer)).toEqual(['locked']);
});

test('a right password for a user with no account record is refused like a wrong one, and counted', async () => {
  const email = `orphan${++users}@example.com`;
  const password = await createDashboardUser(email, 'Orphan');
  // A right temporary password (no challenge without an account) and a right permanent one alike.
  const { deps } = watchedDirectory();
  const ip = freshIp();
  for (let i = 0; i < 5; i++) {
    expect(await attempt(email, password, ip, deps)).toMatchObject({ kind: 'wrong_credentials' });
  }
  expect(await attempt(email, password, ip, deps)).toMatchObject({ kind: 'throttled' });
});
