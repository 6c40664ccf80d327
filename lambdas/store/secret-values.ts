import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { TtlCache } from '../identity/ttl-cache.js';

/**
 * Reads secret values with a short, bounded in-memory cache: a rotated or newly set secret
 * is picked up within `SECRET_TTL_MS` on every instance without a Secrets Manager call per
 * request. Locally only the endpoint differs (AWS_ENDPOINT_URL_SECRETS_MANAGER).
 */
const SECRET_TTL_MS = 5 * 60_000;

/**
 * Most functions never read a secret: the SDK client module is loaded on first use, keeping
 * it out of every other function's cold start.
 */
const sdk = () => import('@aws-sdk/client-secrets-manager');
let client: SecretsManagerClient | undefined;
const cache = new TtlCache<Promise<string>>(SECRET_TTL_MS, 1000);

export function readSecret(secretId: string): Promise<string> {
  let value = cache.get(secretId);
  if (!value) {
    value = fetchSecret(secretId);
    // A failed read must not be remembered: the next request tries again.
    value.catch(() => cache.delete(secretId));
    cache.set(secretId, value);
  }
  return value;
}

async function fetchSecret(secretId: string): Promise<string> {
  const { SecretsManagerClient, GetSecretValueCommand } = await sdk();
  client ??= new SecretsManagerClient({ maxAttempts: 3 });
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (SecretString === undefined) throw new Error(`secret ${secretId} has no string value`);
  return SecretString;
}
