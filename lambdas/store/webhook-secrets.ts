import { secretsManager } from './secrets-manager-client.js';
import { configuration, required } from '../config/configuration.js';
import { ENV } from '../config/environment.js';

/**
 * Each account's webhook signing secrets (docs/interface.md §6.4), one Secrets Manager secret
 * per account under the stack's KMS key, as callers' provider keys are kept
 * (provider-key-secrets.ts): the secret never sits in DynamoDB, and a function reads it only
 * with its grant (`webhookSecrets:read`). The value is JSON: the current secret and, for a day
 * after a rotation, the previous one, which deliveries keep signing with.
 */

export interface WebhookSecrets {
  /** `whsec_<base64>`, as Standard Webhooks writes a secret. */
  readonly current: string;
  readonly previous?: string;
  /** Epoch milliseconds until which `previous` still signs. */
  readonly previousExpiresAt?: number;
}

/** How long the previous secret keeps signing after a rotation. */
export const WEBHOOK_ROTATION_WINDOW_MS = 24 * 3600_000;

const secretName = (accountId: string) =>
  `${required(configuration().webhookSecretPrefix, ENV.webhookSecretPrefix)}${accountId}`;

const isNotFound = (error: unknown) => (error as { name?: string }).name === 'ResourceNotFoundException';

/** The account's secrets, or undefined before the first was made. */
export async function readWebhookSecrets(accountId: string): Promise<WebhookSecrets | undefined> {
  const { client, GetSecretValueCommand } = await secretsManager();
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretName(accountId) }));
    return parseSecrets(accountId, SecretString);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * The account's secrets, made with `fresh()` on the first call. Two first calls at once make
 * one secret: the loser's create is refused and it reads the winner's.
 */
export async function ensureWebhookSecrets(accountId: string, fresh: () => string): Promise<WebhookSecrets> {
  const existing = await readWebhookSecrets(accountId);
  if (existing) return existing;
  const made: WebhookSecrets = { current: fresh() };
  const { client, CreateSecretCommand } = await secretsManager();
  try {
    await client.send(
      new CreateSecretCommand({
        Name: secretName(accountId),
        SecretString: JSON.stringify(made),
        KmsKeyId: configuration().webhookSecretsKmsKeyId,
        Description: "An account's webhook signing secret, kept by the AI gateway",
        Tags: [{ Key: 'gateway:account', Value: accountId }],
      }),
    );
    return made;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceExistsException') throw error;
    const winner = await readWebhookSecrets(accountId);
    if (!winner) throw error;
    return winner;
  }
}

/**
 * A new current secret; the one it replaces keeps signing for WEBHOOK_ROTATION_WINDOW_MS.
 * Rotating again within the window drops the older previous secret at once: only two sign.
 */
export async function rotateWebhookSecrets(
  accountId: string,
  fresh: () => string,
  now = Date.now(),
): Promise<WebhookSecrets> {
  const before = await ensureWebhookSecrets(accountId, fresh);
  const rotated: WebhookSecrets = {
    current: fresh(),
    previous: before.current,
    previousExpiresAt: now + WEBHOOK_ROTATION_WINDOW_MS,
  };
  const { client, PutSecretValueCommand } = await secretsManager();
  await client.send(
    new PutSecretValueCommand({ SecretId: secretName(accountId), SecretString: JSON.stringify(rotated) }),
  );
  return rotated;
}

/** The secrets that sign at `now`: the current one, and the previous one inside its window. */
export const signingSecrets = (kept: WebhookSecrets, now = Date.now()): string[] =>
  kept.previous !== undefined && (kept.previousExpiresAt ?? 0) > now ? [kept.current, kept.previous] : [kept.current];

function parseSecrets(accountId: string, value: string | undefined): WebhookSecrets {
  const parsed = JSON.parse(value ?? 'null') as Partial<WebhookSecrets> | null;
  if (typeof parsed?.current !== 'string')
    throw new Error(`the webhook secret of account ${accountId} holds no current secret`);
  return {
    current: parsed.current,
    ...(typeof parsed.previous === 'string' ? { previous: parsed.previous } : {}),
    ...(typeof parsed.previousExpiresAt === 'number' ? { previousExpiresAt: parsed.previousExpiresAt } : {}),
  };
}
