import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  budgetCounterRef,
  keyBudgetScope,
  readBudgetCounters,
  settleBudget,
  type BudgetCounter,
} from '../../lambdas/store/budget-counters.js';
import { useGateway } from './support/gateway-fixture.js';
import { useWebhookReceiver, type Delivery } from './support/webhook-receiver.js';
import { bearer, call } from './support/http.js';
import { createKey, provisionAccount, type TestAccount } from './support/provisioning.js';

/**
 * Budget webhooks over HTTP against the local runtime (docs/interface.md §2.5, §6.4): the
 * account's `webhookUrl` set with PATCH /api/v1/budget, a key's budget crossing 50% by a chat
 * call, and the signed `budget.threshold_crossed` event its receiver gets through the notice
 * queue and its consumer; a receiver that fails twice gets it on the third attempt with the same
 * webhook-id; no URL, no event; a URL that is not public, a 400 naming `webhookUrl`.
 *
 * The receiver listens on loopback, given to the runtime as GATEWAY_LOCAL_WEBHOOK_RECEIVERS (the
 * local-only exception to the URL policy), and the consumer's backoff is 0 s here, so a retry
 * comes with the queue poller's next round.
 */
const env: Record<string, string> = { POWERTOOLS_LOG_LEVEL: 'WARN', BUDGET_WEBHOOK_BACKOFF_SECONDS: '0' };
const { deliveries, failuresLeft, hook, deliveriesTo } = useWebhookReceiver(env);

const local = useGateway({ env, runtimeTables: true, simulator: 'openai', unthrottled: true });

const LIMIT_MICRO_USD = 10_000_000;

const patchBudget = (account: TestAccount, body: unknown) =>
  call(local.gateway.url('/api/v1/budget'), { method: 'PATCH', headers: account.session, body });

const readSecret = async (account: TestAccount) =>
  (await call(local.gateway.url('/api/v1/webhooks/secret'), { headers: account.session })).body.data.secret as string;

/** A fresh account and a key with a $10 `total` budget whose spend is already just under `percent`. */
async function keyNear(label: string, percent: number) {
  const account = await provisionAccount(local.gateway, label);
  const { keyId, key } = await createKey(local.gateway, account, { budget: { limitUsd: 10, period: 'total' } });
  await settleBudget(counterRef(keyId), 0, (LIMIT_MICRO_USD * percent) / 100 - 1);
  return { account, keyId, key };
}

const counterRef = (keyId: string) => budgetCounterRef(keyBudgetScope(keyId), 'total', new Date());

/** A chat call on `key`, then its settlement (after the response) awaited: nothing reserved left open. */
async function spend(key: string, keyId: string): Promise<BudgetCounter> {
  const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(key), 'X-Cache': 'no-cache' },
    body: { model: 'gpt', messages: [{ role: 'user', content: 'Count to three.' }], max_tokens: 100 },
  });
  expect(answer.status).toBe(200);
  for (let i = 0; i < 400; i++) {
    const [counter] = await readBudgetCounters([counterRef(keyId)]);
    if (counter && counter.committedMicroUsd === counter.spentMicroUsd && counter.spentMicroUsd > 0) return counter;
    await sleep(25);
  }
  throw new Error('the settlement never landed');
}

/** Until `name` has received `count` deliveries (a generous safety net, not a bound on speed). */
async function received(name: string, count: number): Promise<Delivery[]> {
  const deadline = Date.now() + 60_000;
  while (deliveriesTo(name).length < count && Date.now() < deadline) await sleep(25);
  return deliveriesTo(name);
}

/** Standard Webhooks' check, written out here: each `v1,` signature against the secret. */
function signatureVerifies(delivery: Delivery, secret: string): boolean {
  const content = `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.body}`;
  const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(content)
    .digest('base64');
  return String(delivery.headers['webhook-signature'])
    .split(' ')
    .some((signature) => signature === `v1,${expected}`);
}

test("a URL that is not public, or a body without either field, is a 400 naming it; the URL is answered in the account's budget view", async () => {
  const account = await provisionAccount(local.gateway, 'hook-checks');
  for (const [body, field] of [
    [{ webhookUrl: 'http://hooks.example.com/x' }, 'webhookUrl'],
    [{ webhookUrl: 'https://10.0.0.1/x' }, 'webhookUrl'],
    [{ webhookUrl: 'https://localhost/x' }, 'webhookUrl'],
    [{ webhookUrl: 42 }, 'webhookUrl'],
    [{}, 'budget'],
  ] as const) {
    const answer = await patchBudget(account, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
    expect(answer.body.error.message.startsWith(`${field}`)).toBe(true);
  }
  const set = await patchBudget(account, { webhookUrl: hook('view') });
  expect(set.status).toBe(200);
  expect(set.body.data).toEqual({ budget: null, webhookUrl: hook('view') });
  // The budget alone leaves the URL as it was; null removes either.
  const budgeted = await patchBudget(account, { budget: { limitUsd: 5, period: 'day' } });
  expect(budgeted.body.data).toMatchObject({ budget: { limitUsd: 5, period: 'day' }, webhookUrl: hook('view') });
  const read = await call(local.gateway.url('/api/v1/budget'), { headers: account.session });
  expect(read.body.data).toMatchObject({ budget: { limitUsd: 5 }, webhookUrl: hook('view') });
  const removed = await patchBudget(account, { webhookUrl: null });
  expect(removed.body.data).toMatchObject({ budget: { limitUsd: 5 }, webhookUrl: null });
  const admin = await call(local.gateway.url(`/api/admin/v1/accounts/${account.accountId}`), {
    method: 'PATCH',
    headers: bearer(local.gateway.info.adminToken),
    body: { webhookUrl: 'ftp://hooks.example.com/x' },
  });
  expect(admin.status).toBe(400);
  expect(admin.body.error).toMatchObject({ field: 'webhookUrl' });
});

test('a key budget crossing 50% posts one signed budget.threshold_crossed event', async () => {
  const { account, keyId, key } = await keyNear('hook-crossing', 50);
  expect((await patchBudget(account, { webhookUrl: hook('crossing') })).status).toBe(200);
  const secret = await readSecret(account);
  const counter = await spend(key, keyId);
  expect(counter.spentMicroUsd).toBeGreaterThanOrEqual(LIMIT_MICRO_USD / 2);
  expect(counter.spentMicroUsd).toBeLessThan((LIMIT_MICRO_USD * 80) / 100);

  const [delivery] = await received('crossing', 1);
  expect(delivery!.headers['webhook-id']).toBe(`KEY#${keyId}.total.50`);
  expect(delivery!.headers['content-type']).toBe('application/json');
  expect(signatureVerifies(delivery!, secret)).toBe(true);
  expect(signatureVerifies({ ...delivery!, body: delivery!.body.replace('"key"', '"account"') }, secret)).toBe(false);
  expect(JSON.parse(delivery!.body)).toEqual({
    type: 'budget.threshold_crossed',
    timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    data: {
      owner: 'key',
      keyId,
      accountId: account.accountId,
      period: 'total',
      periodStart: 'total',
      limitUsd: 10,
      spentUsd: counter.spentMicroUsd / 1e6,
      thresholdPercent: 50,
    },
  });

  // A second call crosses nothing more: the next delivery the receiver gets is the later test's.
  await spend(key, keyId);
});

test('a receiver answering 500 twice then 200 gets the event on the third attempt, with the same webhook-id', async () => {
  const { account, keyId, key } = await keyNear('hook-retries', 50);
  failuresLeft.set('/hooks/retries', 2);
  expect((await patchBudget(account, { webhookUrl: hook('retries') })).status).toBe(200);
  const secret = await readSecret(account);
  await spend(key, keyId);
  const attempts = await received('retries', 3);
  expect(attempts).toHaveLength(3);
  expect(new Set(attempts.map((attempt) => attempt.headers['webhook-id']))).toEqual(new Set([`KEY#${keyId}.total.50`]));
  expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
  expect(attempts.every((attempt) => signatureVerifies(attempt, secret))).toBe(true);
  expect(deliveriesTo('crossing')).toHaveLength(1);
});

test('no URL configured: a crossing sends nothing; the URL set afterwards hears only the next crossing', async () => {
  const { account, keyId, key } = await keyNear('hook-none', 50);
  const first = await spend(key, keyId);
  expect(first.spentMicroUsd).toBeGreaterThanOrEqual(LIMIT_MICRO_USD / 2);
  expect((await patchBudget(account, { webhookUrl: hook('later') })).status).toBe(200);
  // The spend moved to just under 80%, so the next call crosses 80% only.
  await settleBudget(counterRef(keyId), 0, (LIMIT_MICRO_USD * 80) / 100 - 1 - first.spentMicroUsd);
  await spend(key, keyId);
  const [delivery, ...more] = await received('later', 1);
  expect(more).toEqual([]);
  expect(delivery!.headers['webhook-id']).toBe(`KEY#${keyId}.total.80`);
  // Nothing of this account's reached any other path either.
  const ofAccount = deliveries.filter((each) => each.body.includes(account.accountId));
  expect(ofAccount.map((each) => each.path)).toEqual(['/hooks/later']);
});
