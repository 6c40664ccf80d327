import { CreateSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN_SECRET, PLATFORM_KEYS_SECRET } from './runtime-config.js';

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
export async function ensureSecrets(client: SecretsManagerClient): Promise<string> {
  const token = randomBytes(36).toString('base64url');
  await createIfMissing(client, ADMIN_TOKEN_SECRET, token);
  await createIfMissing(client, PLATFORM_KEYS_SECRET, '{}');
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: ADMIN_TOKEN_SECRET }));
  return SecretString!;
}

async function createIfMissing(client: SecretsManagerClient, name: string, value: string): Promise<void> {
  try {
    await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceExistsException') throw error;
  }
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
    dashboard: { email: dashboard.email, password: dashboard.initialPassword },
  };
  writeFileSync(file, JSON.stringify(first, null, 2), { mode: 0o600 });
  return first;
}
