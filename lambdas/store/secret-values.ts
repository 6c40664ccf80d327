import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { TtlCache } from './ttl-cache.js';

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
const cache = new TtlCache<{ readonly value: Promise<string>; readonly readAt: number }>(SECRET_TTL_MS, 1000);

export function readSecret(secretId: string): Promise<string> {
  return (cache.get(secretId) ?? read(secretId)).value;
}

/**
 * The secret as Secrets Manager holds it now, unless the kept value was read less than
 * `minAgeMs` ago. For a credential that did not match: a just-rotated value is accepted at
 * once instead of after the cache time, while a stream of wrong credentials costs at most one
 * Secrets Manager call per `minAgeMs` on an instance.
 */
export function rereadSecret(secretId: string, minAgeMs: number, now = Date.now()): Promise<string> {
  const kept = cache.get(secretId);
  return (kept && now - kept.readAt < minAgeMs ? kept : read(secretId)).value;
}

function read(secretId: string): { value: Promise<string>; readAt: number } {
  const entry = { value: fetchSecret(secretId), readAt: Date.now() };
  // A failed read must not be remembered: the next request tries again.
  entry.value.catch(() => {
    if (cache.get(secretId) === entry) cache.delete(secretId);
  });
  cache.set(secretId, entry);
  return entry;
}

async function fetchSecret(secretId: string): Promise<string> {
  const { SecretsManagerClient, GetSecretValueCommand } = await sdk();
  client ??= new SecretsManagerClient({ maxAttempts: 3 });
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (SecretString === undefined) throw new Error(`secret ${secretId} has no string value`);
  return SecretString;
}
