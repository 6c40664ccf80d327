import {
  ensureWebhookSecrets,
  rotateWebhookSecrets,
  signingSecrets,
  type WebhookSecrets,
} from '../store/webhook-secrets.js';
import { newWebhookSecret } from './webhook-signature.js';

/**
 * The webhook secret routes' answers (docs/interface.md §6.4): the account's current signing
 * secret, made on the first read, and during a rotation's window the previous one, which
 * deliveries still sign with.
 */
export interface WebhookSecretView {
  readonly secret: string;
  readonly previousSecret: string | null;
  /** ISO 8601: when the previous secret stops signing. */
  readonly previousExpiresAt: string | null;
}

export async function currentWebhookSecret(accountId: string, now = Date.now()): Promise<WebhookSecretView> {
  return viewOf(await ensureWebhookSecrets(accountId, newWebhookSecret), now);
}

export async function rotatedWebhookSecret(accountId: string, now = Date.now()): Promise<WebhookSecretView> {
  return viewOf(await rotateWebhookSecrets(accountId, newWebhookSecret, now), now);
}

function viewOf(kept: WebhookSecrets, now: number): WebhookSecretView {
  const signing = signingSecrets(kept, now);
  const previous = signing.length > 1 ? kept.previous! : null;
  return {
    secret: kept.current,
    previousSecret: previous,
    previousExpiresAt: previous === null ? null : new Date(kept.previousExpiresAt!).toISOString(),
  };
}
