import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { secretsManager } from './secrets-manager-client.js';
import { SECRET_ACCOUNT_TAG } from './tenant-tags.js';
import { configuration, required } from '../config/configuration.js';
import { ENV } from '../config/environment.js';

/**
 * One Secrets Manager secret per stored provider key, under the customer-managed KMS key:
 * no read-modify-write races between keys, and deleting a key is one call.
 */

/**
 * Returns the secret's ARN. The account tag is what the tenant session's policy matches
 * (lambdas/store/tenant-tags.ts): without it no tenant session could read the secret.
 */
export async function createProviderKeySecret(accountId: string, id: string, apiKey: string): Promise<string> {
  const { client, CreateSecretCommand } = await secretsManager();
  const { ARN } = await client.send(
    new CreateSecretCommand({
      Name: `${required(configuration().providerKeySecretPrefix, ENV.providerKeySecretPrefix)}${accountId}/${id}`,
      SecretString: apiKey,
      KmsKeyId: configuration().providerKeysKmsKeyId,
      Description: 'A caller-supplied model provider API key, stored by the AI gateway',
      Tags: [{ Key: SECRET_ACCOUNT_TAG, Value: accountId }],
    }),
  );
  return ARN!;
}

/**
 * Read with the owning account's tenant session (lambdas/store/tenant-sessions.ts): the
 * function's own role cannot read provider keys, and the session reads only its account's.
 */
export async function readProviderKeySecret(secretId: string, client: SecretsManagerClient): Promise<string> {
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  return SecretString ?? '';
}

/** Deleted at once, without a recovery window: a revoked key must stop being usable now. */
export async function deleteProviderKeySecret(secretId: string): Promise<void> {
  const { client, DeleteSecretCommand } = await secretsManager();
  try {
    await client.send(new DeleteSecretCommand({ SecretId: secretId, ForceDeleteWithoutRecovery: true }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
}
