import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * The Secrets Manager client of the secrets a function writes (callers' provider keys, webhook
 * signing secrets), loaded at the first use: the SDK module is a measurable share of a cold
 * start, and most calls never touch one of these.
 */
const sdk = () => import('@aws-sdk/client-secrets-manager');
let client: SecretsManagerClient | undefined;

export async function secretsManager() {
  const module = await sdk();
  client ??= new module.SecretsManagerClient({ maxAttempts: 3 });
  return { client, ...module };
}
