import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePassword } from '../lambdas/identity/user-directory.js';
import { SigV4Signer } from '../lambdas/store/signed-request.js';
import { ADMIN_TOKEN_SECRET, LOCAL_REGION, PLATFORM_KEYS_SECRET } from './runtime-config.js';
import type { StandInCredentials } from './standins/signature-check.js';

/** What the first start provisions and every later start reuses. */
export interface FirstAccount {
  readonly accountId: string;
  readonly apiKey: string;
  readonly dashboard: { readonly email: string; readonly password: string };
}

const FIRST_ACCOUNT_FILE = 'first-account.json';
const FIRST_EMAIL = 'developer@localhost.test';

/**
 * The admin token and an empty platform-keys secret, created once like `cdk deploy` does.
 * Returns the admin token.
 */
export async function ensureSecrets(secretsManagerUrl: string, credentials: StandInCredentials): Promise<string> {
  const call = (operation: string, input: unknown) => secretsManager(secretsManagerUrl, credentials, operation, input);
  const token = randomBytes(36).toString('base64url');
  await createIfMissing(call, ADMIN_TOKEN_SECRET, token);
  await createIfMissing(call, PLATFORM_KEYS_SECRET, '{}');
  const { SecretString } = (await call('GetSecretValue', { SecretId: ADMIN_TOKEN_SECRET })) as {
    SecretString: string;
  };
  return SecretString;
}

/** A secret the runtime derives at every start (its value may change between starts): created or replaced. */
export async function putSecret(
  secretsManagerUrl: string,
  credentials: StandInCredentials,
  name: string,
  value: string,
): Promise<void> {
  const call = (operation: string, input: unknown) => secretsManager(secretsManagerUrl, credentials, operation, input);
  try {
    await call('CreateSecret', { Name: name, SecretString: value });
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceExistsException') throw error;
    await call('PutSecretValue', { SecretId: name, SecretString: value });
  }
}

async function createIfMissing(
  call: (operation: string, input: unknown) => Promise<unknown>,
  name: string,
  value: string,
): Promise<void> {
  try {
    await call('CreateSecret', { Name: name, SecretString: value });
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceExistsException') throw error;
  }
}

const signer = new SigV4Signer(LOCAL_REGION, 'secretsmanager');

/**
 * One call to the local Secrets Manager stand-in in its JSON protocol, signed as the stand-in
 * demands, with the gateway's own small signer: the gateway process need not load the AWS SDK
 * just to bootstrap.
 */
async function secretsManager(
  url: string,
  credentials: StandInCredentials,
  operation: string,
  input: unknown,
): Promise<unknown> {
  const body = JSON.stringify(input);
  const headers: Record<string, string> = {
    host: new URL(url).host,
    'content-type': 'application/x-amz-json-1.1',
    'x-amz-target': `secretsmanager.${operation}`,
  };
  signer.sign('POST', '/', headers, body, credentials);
  // fetch sends the URL's host itself: the same value as signed.
  delete headers['host'];
  const response = await fetch(url, { method: 'POST', headers, body });
  const answer = (await response.json()) as { __type?: string; message?: string };
  if (!response.ok)
    throw Object.assign(new Error(answer.message ?? operation), { name: (answer.__type ?? 'Error').split('#').pop() });
  return answer;
}

/**
 * The first account, its dashboard user and its first secret key, provisioned through the
 * gateway's own admin API (the path a partner would use) on the first start only. Kept in the
 * data folder in plain text: it is the developer's own machine, and runtime.json prints it anyway.
 */
export async function ensureFirstAccount(dataDir: string, baseUrl: string, adminToken: string): Promise<FirstAccount> {
  const file = join(dataDir, FIRST_ACCOUNT_FILE);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as FirstAccount;
  const admin = async (path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const payload = (await response.json()) as { data: Record<string, unknown> };
    if (!response.ok) throw new Error(`bootstrap ${path} failed: ${response.status} ${JSON.stringify(payload)}`);
    return payload.data;
  };
  const account = await admin('/api/admin/v1/accounts', { email: FIRST_EMAIL, name: 'Local developer' });
  const key = await admin('/api/admin/v1/keys', { accountId: account['accountId'], type: 'secret', name: 'First key' });
  const dashboard = account['dashboard'] as { email: string; initialPassword: string };
  const first: FirstAccount = {
    accountId: account['accountId'] as string,
    apiKey: key['key'] as string,
    dashboard: { email: dashboard.email, password: await firstSignIn(baseUrl, dashboard) },
  };
  writeFileSync(file, JSON.stringify(first, null, 2), { mode: 0o600 });
  return first;
}

/**
 * The developer's first sign-in, done here so the printed password is a permanent one: the admin
 * API's password is temporary, and signs in only together with the user's own new password.
 */
async function firstSignIn(baseUrl: string, dashboard: { email: string; initialPassword: string }): Promise<string> {
  const newPassword = generatePassword();
  const response = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: dashboard.email, password: dashboard.initialPassword, newPassword }),
  });
  if (!response.ok) throw new Error(`bootstrap first sign-in failed: ${response.status}`);
  return newPassword;
}
