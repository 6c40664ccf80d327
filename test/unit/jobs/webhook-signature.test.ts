import { createHmac } from 'node:crypto';
import { newWebhookSecret, webhookHeaders, webhookSignature } from '../../../lambdas/jobs/webhook-signature.js';

/**
 * The signer against Standard Webhooks: the spec's published test vector (the reference
 * libraries' own), and the formula recomputed here with node:crypto, so the product's code is
 * not its own oracle.
 */

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

/** The spec's formula written out: HMAC-SHA256 of `id.timestamp.body` keyed by the base64-decoded secret. */
const independent = (secret: string, id: string, timestamp: number, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')}`;

test('the Standard Webhooks test vector signs as published', () => {
  expect(webhookSignature(VECTOR, [VECTOR.secret])).toBe(VECTOR.signature);
  expect(independent(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
});

test('another message, another signature: every part of the content counts', () => {
  const base = { id: VECTOR.id, timestamp: VECTOR.timestamp, body: VECTOR.body };
  for (const changed of [
    { ...base, id: 'msg_other' },
    { ...base, timestamp: base.timestamp + 1 },
    { ...base, body: '{"test": 2432232315}' },
  ]) {
    expect(webhookSignature(changed, [VECTOR.secret])).not.toBe(VECTOR.signature);
    expect(webhookSignature(changed, [VECTOR.secret])).toBe(
      independent(VECTOR.secret, changed.id, changed.timestamp, changed.body),
    );
  }
});

test('during a rotation each secret signs, space-separated, the current first', () => {
  const current = newWebhookSecret();
  const message = { id: 'job_x.video.completed', timestamp: 1_750_000_000, body: '{"type":"video.completed"}' };
  const headers = webhookHeaders(message, [current, VECTOR.secret]);
  expect(headers).toEqual({
    'webhook-id': message.id,
    'webhook-timestamp': '1750000000',
    'webhook-signature': `${independent(current, message.id, message.timestamp, message.body)} ${independent(
      VECTOR.secret,
      message.id,
      message.timestamp,
      message.body,
    )}`,
  });
});

test('new secrets are whsec_ and 32 random bytes, never the same twice', () => {
  const a = newWebhookSecret();
  const b = newWebhookSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
  expect(a).not.toBe(b);
});
