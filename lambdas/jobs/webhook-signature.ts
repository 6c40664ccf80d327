import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, docs/interface.md §6.4): the
 * receiver recomputes HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>` with the
 * secret's bytes (the base64 after `whsec_`) and compares it with each `v1,<base64>` of the
 * `webhook-signature` header. Several signatures, space-separated, let a rotation overlap.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new secret: 32 random bytes, as Standard Webhooks writes them. */
export const newWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

export interface SignedMessage {
  /** Stable across retries of one event (the receiver's idempotency key). */
  readonly id: string;
  /** Unix seconds of this attempt. */
  readonly timestamp: number;
  readonly body: string;
}

/** One `v1,<base64>` per secret, space-separated, in the order given. */
export function webhookSignature(message: SignedMessage, secrets: readonly string[]): string {
  const content = `${message.id}.${message.timestamp}.${message.body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', secretBytes(secret)).update(content).digest('base64')}`)
    .join(' ');
}

/** The headers a delivery carries besides its content type. */
export function webhookHeaders(message: SignedMessage, secrets: readonly string[]): Record<string, string> {
  return {
    'webhook-id': message.id,
    'webhook-timestamp': String(message.timestamp),
    'webhook-signature': webhookSignature(message, secrets),
  };
}

function secretBytes(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}
