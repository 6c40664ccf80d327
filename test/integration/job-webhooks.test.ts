import { createHmac } from 'node:crypto';
import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { useWebhookReceiver, type Delivery } from './support/webhook-receiver.js';

/**
 * Job webhooks over HTTP against the local runtime (docs/interface.md §6.4): a video and a
 * fashion prediction submitted with a `webhook_url` each reach a receiver this test runs exactly
 * once, signed as Standard Webhooks says with the secret GET /api/v1/webhooks/secret shows; a
 * receiver that fails twice is tried three times; after a rotation both secrets sign; and a
 * URL that is not public is a 400 naming `webhook_url`.
 *
 * The receiver listens on loopback, which the public-URL policy refuses: its origin is given to
 * the runtime as GATEWAY_LOCAL_WEBHOOK_RECEIVERS, the local-only exception (the stack never sets
 * it: test/infra/functions.cases.ts). It is set before the runtime starts: the receiver's hook
 * is registered first, so it runs first.
 */
const env: Record<string, string> = { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '50' };
const { failuresLeft, hook, deliveriesTo } = useWebhookReceiver(env);

const local = useGateway({
  env,
  account: 'webhooks',
  key: { via: 'dashboard' },
  simulator: 'fashn',
  unthrottled: true,
});

const post = (path: string, body: unknown) => call(local.gateway.url(path), { headers: bearer(local.key), body });
const submitVideo = (body: Record<string, unknown>) =>
  post('/api/v1/media/video', { prompt: 'A lighthouse at dusk [sim:polls=2]', ...body });
const runFashion = (body: Record<string, unknown>) =>
  post('/api/v1/fashion/run', {
    model_name: 'background-remove',
    inputs: { image: 'https://images.example.com/a.jpg?x=[sim:polls=1]' },
    ...body,
  });
const videoStatus = (id: string) =>
  call(local.gateway.url(`/api/v1/media/video/status?task_id=${id}`), { headers: bearer(local.key) });
const fashionStatus = (id: string) =>
  call(local.gateway.url(`/api/v1/fashion/status/${id}`), { headers: bearer(local.key) });

const readSecret = async () =>
  (await call(local.gateway.url('/api/v1/webhooks/secret'), { headers: local.account.session })).body.data as {
    secret: string;
    previousSecret: string | null;
    previousExpiresAt: string | null;
  };

/** Until the job's webhook has settled (delivered or failed), as its status route shows. */
async function settled(read: () => Promise<Answer>): Promise<Answer> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await read();
    const webhook = answer.body?.data?.webhook as { status?: string } | null | undefined;
    if ((webhook && webhook.status !== 'pending') || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Standard Webhooks' check, written out here: each `v1,` signature against each secret. */
function signatureVerifies(delivery: Delivery, secret: string): boolean {
  const content = `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.body}`;
  const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(content)
    .digest('base64');
  const signatures = String(delivery.headers['webhook-signature']).split(' ');
  return signatures.some((signature) => signature === `v1,${expected}`);
}

test('a video job: one signed video.completed delivery, its data the status answer; the status shows it delivered', async () => {
  const { secret } = await readSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const submitted = await submitVideo({ webhook_url: hook('video') });
  expect(submitted.status).toBe(200);
  const taskId = submitted.body.data.task_id as string;
  const done = await settled(() => videoStatus(taskId));
  expect(done.body.data).toMatchObject({
    status: 'Success',
    webhook: { status: 'delivered', attempts: 1, last_status: 200 },
  });
  const [delivery, ...more] = deliveriesTo('video');
  expect(more).toEqual([]);
  expect(delivery!.headers['webhook-id']).toBe(`${taskId}.video.completed`);
  expect(Number(delivery!.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 300);
  expect(delivery!.headers['content-type']).toBe('application/json');
  expect(signatureVerifies(delivery!, secret)).toBe(true);
  const event = JSON.parse(delivery!.body) as { type: string; timestamp: string; data: Record<string, unknown> };
  const { webhook: _webhook, download_url: _url, ...statusData } = done.body.data as Record<string, unknown>;
  expect(event).toEqual({
    type: 'video.completed',
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    data: { ...statusData, download_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/cdn\/video\//) },
  });
  // A tampered body no longer verifies: the check above is not vacuous.
  expect(signatureVerifies({ ...delivery!, body: delivery!.body.replace('Success', 'Fail') }, secret)).toBe(false);
});

test('fashion predictions: fashion.completed and fashion.failed, once each, signed', async () => {
  const { secret } = await readSecret();
  const completed = await runFashion({ webhook_url: hook('fashion-ok') });
  const failed = await runFashion({
    inputs: { image: 'https://images.example.com/a.jpg?x=[sim:polls=1][sim:fail=PoseError]' },
    webhook_url: hook('fashion-failed'),
  });
  expect([completed.status, failed.status]).toEqual([200, 200]);
  const [ok, bad] = await Promise.all([
    settled(() => fashionStatus(completed.body.data.prediction_id as string)),
    settled(() => fashionStatus(failed.body.data.prediction_id as string)),
  ]);
  expect(ok.body.data).toMatchObject({ status: 'completed', webhook: { status: 'delivered', attempts: 1 } });
  expect(bad.body.data).toMatchObject({ status: 'failed', webhook: { status: 'delivered', attempts: 1 } });
  for (const [name, answer, type] of [
    ['fashion-ok', ok, 'fashion.completed'],
    ['fashion-failed', bad, 'fashion.failed'],
  ] as const) {
    const received = deliveriesTo(name);
    expect(received).toHaveLength(1);
    expect(signatureVerifies(received[0]!, secret)).toBe(true);
    const { webhook: _webhook, ...data } = answer.body.data as Record<string, unknown>;
    expect(JSON.parse(received[0]!.body)).toEqual({ type, timestamp: expect.any(String), data });
  }
});

test('a receiver that answers 500 twice then 200 is tried three times, with one webhook-id; the job is unaffected', async () => {
  failuresLeft.set('/hooks/flaky', 2);
  const submitted = await runFashion({ webhook_url: hook('flaky') });
  const done = await settled(() => fashionStatus(submitted.body.data.prediction_id as string));
  expect(done.body.data).toMatchObject({
    status: 'completed',
    webhook: { status: 'delivered', attempts: 3, last_status: 200 },
  });
  const received = deliveriesTo('flaky');
  expect(received).toHaveLength(3);
  expect(new Set(received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(1);
  // The event is the same on every attempt; only its timestamp and signature are the attempt's.
  expect(new Set(received.map((delivery) => delivery.body)).size).toBe(1);
});

test('after a rotation each delivery carries two signatures, one per secret, for 24 hours', async () => {
  const before = await readSecret();
  const rotated = await call(local.gateway.url('/api/v1/webhooks/secret/rotate'), {
    method: 'POST',
    headers: local.account.session,
  });
  expect(rotated.status).toBe(200);
  const { secret, previousSecret, previousExpiresAt } = rotated.body.data;
  expect([secret === before.secret, previousSecret]).toEqual([false, before.secret]);
  expect(Date.parse(previousExpiresAt as string) - Date.now()).toBeGreaterThan(23 * 3600_000);
  expect(await readSecret()).toEqual(rotated.body.data);

  const submitted = await runFashion({ webhook_url: hook('rotated') });
  await settled(() => fashionStatus(submitted.body.data.prediction_id as string));
  const [delivery] = deliveriesTo('rotated');
  const signatures = String(delivery!.headers['webhook-signature']).split(' ');
  expect(signatures).toHaveLength(2);
  for (const key of [secret as string, before.secret]) {
    expect(signatureVerifies(delivery!, key)).toBe(true);
  }
  expect(signatureVerifies(delivery!, 'whsec_' + Buffer.alloc(32).toString('base64'))).toBe(false);
});

test('the secret routes take a session only', async () => {
  const withKey = await call(local.gateway.url('/api/v1/webhooks/secret'), { headers: bearer(local.key) });
  expect(withKey.status).toBe(403);
  const none = await call(local.gateway.url('/api/v1/webhooks/secret/rotate'), { method: 'POST' });
  expect(none.status).toBe(401);
});

describe('a webhook_url that is not public https is a 400 naming webhook_url, on both routes', () => {
  test.each([
    ['a private address', 'https://10.0.0.1/hook'],
    ['localhost', 'https://localhost/hook'],
    ['a name spelling a loopback address', 'https://127.0.0.1.nip.io/hook'],
    ['loopback not named as a local receiver', 'http://127.0.0.1:1/hook'],
    ['plain http', 'http://hooks.example.com/hook'],
    ['not a URL', 'hooks'],
  ])('%s', async (_, url) => {
    for (const answer of [await submitVideo({ webhook_url: url }), await runFashion({ webhook_url: url })]) {
      expect([answer.status, answer.body.error.field]).toEqual([400, 'webhook_url']);
      expect(answer.body.error.message).toMatch(/^webhook_url: must be a public https URL/);
    }
  });
});
