import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { TtlCache } from '../identity/ttl-cache.js';

/**
 * Reads secret values with a short, bounded in-memory cache: a rotated or newly set secret
 * is picked up within `SECRET_TTL_MS` on every instance without a Secrets Manager call per
 * request. Locally only the endpoint differs (AWS_ENDPOINT_URL_SECRETS_MANAGER).
 */
const SECRET_TTL_MS = 5 * 60_000;

let client: SecretsManagerClient | undefined;
const cache = new TtlCache<Promise<string>>(SECRET_TTL_MS, 1000);

export function secretsManager(): SecretsManagerClient {
  client ??= new SecretsManagerClient({ maxAttempts: 3 });
  return client;
}

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

export function forgetSecret(secretId: string): void {
  cache.delete(secretId);
}

async function fetchSecret(secretId: string): Promise<string> {
  const { SecretString } = await secretsManager().send(new GetSecretValueCommand({ SecretId: secretId }));
  if (SecretString === undefined) throw new Error(`secret ${secretId} has no string value`);
  return SecretString;
}
