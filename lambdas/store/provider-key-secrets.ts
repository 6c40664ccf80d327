import { secretsManager } from './secrets-manager-client.js';
import { configuration, required } from '../config/configuration.js';
import { ENV } from '../config/environment.js';

/**
 * One Secrets Manager secret per stored provider key, under the customer-managed KMS key:
 * no read-modify-write races between keys, and deleting a key is one call.
 */

/** Returns the secret's ARN. */
export async function createProviderKeySecret(accountId: string, id: string, apiKey: string): Promise<string> {
  const { client, CreateSecretCommand } = await secretsManager();
  const { ARN } = await client.send(
    new CreateSecretCommand({
      Name: `${required(configuration().providerKeySecretPrefix, ENV.providerKeySecretPrefix)}${accountId}/${id}`,
      SecretString: apiKey,
      KmsKeyId: configuration().providerKeysKmsKeyId,
      Description: 'A caller-supplied model provider API key, stored by the AI gateway',
      Tags: [{ Key: 'gateway:account', Value: accountId }],
    }),
  );
  return ARN!;
}

export async function readProviderKeySecret(secretId: string): Promise<string> {
  const { client, GetSecretValueCommand } = await secretsManager();
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
