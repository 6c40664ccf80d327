import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import {
  BUDGET_WEBHOOK_ATTEMPTS,
  deliverBudgetNotices,
  type BudgetWebhookDeps,
} from '../../../lambdas/jobs/budget-webhook-step.js';
import type { DeliveryAnswer } from '../../../lambdas/jobs/webhook-delivery.js';
import {
  announceBudgetCrossing,
  budgetNoticeOf,
  type BudgetThresholdCrossing,
} from '../../../lambdas/usage/budget-notices.js';

/**
 * The budget webhook's event, its id and its consumer (docs/interface.md §6.4), with the
 * transport faked: what is posted, how it is signed (checked with the verification snippet the
 * interface publishes, copied here as an independent oracle), and what a failed attempt leaves
 * to the queue. test/integration/budget-webhooks.test.ts posts over loopback.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** docs/interface.md §6.4's snippet, as a receiver would run it. */
function verify(secret: string, headers: Record<string, string>, raw: string, nowMs: number): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`;
  const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'));
  const fresh = Math.abs(nowMs / 1000 - Number(headers['webhook-timestamp'])) < 300;
  return (
    fresh &&
    headers['webhook-signature']!.split(' ').some((s) => {
      const given = Buffer.from(s.replace(/^v1,/, ''));
      return given.length === expected.length && timingSafeEqual(given, expected);
    })
  );
}

const keyCrossing: BudgetThresholdCrossing = {
  budget: {
    owner: 'key',
    scope: 'KEY#key_1',
    budget: { limitMicroUsd: 10_000_000, period: 'month' },
    accountId: 'acct_1',
    webhookUrl: 'https://hooks.example.com/budget?token=t',
  },
  periodStart: '2026-11',
  thresholdPercent: 50,
  spentMicroUsd: 5_250_000,
};
const NOW = new Date('2026-11-27T12:00:00.000Z');

test('a key budget crossing: the event, its id <scope>.<period start>.<threshold>, and where it goes', () => {
  expect(budgetNoticeOf(keyCrossing, NOW)).toEqual({
    id: 'KEY#key_1.2026-11.50',
    accountId: 'acct_1',
    url: 'https://hooks.example.com/budget?token=t',
    event: {
      type: 'budget.threshold_crossed',
      timestamp: '2026-11-27T12:00:00.000Z',
      data: {
        owner: 'key',
        keyId: 'key_1',
        accountId: 'acct_1',
        period: 'month',
        periodStart: '2026-11',
        limitUsd: 10,
        spentUsd: 5.25,
        thresholdPercent: 50,
      },
    },
  });
});

test("an account budget's event names no key; without a webhook URL there is no notice", () => {
  const account = {
    ...keyCrossing,
    budget: { ...keyCrossing.budget, owner: 'account' as const, scope: 'ACCOUNT#acct_1', shards: 32 },
    thresholdPercent: 100,
  };
  const notice = budgetNoticeOf(account, NOW)!;
  expect(notice.id).toBe('ACCOUNT#acct_1.2026-11.100');
  expect(notice.event.data).not.toHaveProperty('keyId');
  expect(notice.event.data.owner).toBe('account');
  const { webhookUrl: _url, ...unhooked } = keyCrossing.budget;
  expect(budgetNoticeOf({ ...keyCrossing, budget: unhooked }, NOW)).toBeUndefined();
});

test('announcing queues the notice when the account has a webhook, nothing otherwise; a queue failure is not thrown', async () => {
  const sent: string[] = [];
  await announceBudgetCrossing(keyCrossing, async (body) => void sent.push(body), NOW);
  expect(sent.map((body) => JSON.parse(body))).toEqual([budgetNoticeOf(keyCrossing, NOW)]);
  const { webhookUrl: _url, ...unhooked } = keyCrossing.budget;
  await announceBudgetCrossing({ ...keyCrossing, budget: unhooked }, async (body) => void sent.push(body), NOW);
  expect(sent).toHaveLength(1);
  await expect(
    announceBudgetCrossing(keyCrossing, () => Promise.reject(new Error('SQS answered 500')), NOW),
  ).resolves.toBeUndefined();
});

interface Posted {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function consumer(answers: DeliveryAnswer[]) {
  const posted: Posted[] = [];
  const hidden: { receiptHandle: string; seconds: number }[] = [];
  const deps: BudgetWebhookDeps = {
    signingSecrets: async (accountId) => (accountId === 'acct_1' ? [SECRET] : []),
    deliver: async (delivery) => {
      posted.push(delivery);
      return answers.shift() ?? { kind: 'answered', status: 200 };
    },
    hide: async (receiptHandle, seconds) => void hidden.push({ receiptHandle, seconds }),
    backoffSeconds: 30,
    now: () => NOW,
    log: () => {},
  };
  return { deps, posted, hidden };
}

const record = (body: string, receiveCount: number): SQSRecord =>
  ({
    messageId: `m${receiveCount}`,
    receiptHandle: `r${receiveCount}`,
    body,
    attributes: { ApproximateReceiveCount: String(receiveCount) },
  }) as unknown as SQSRecord;
const eventOf = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const noticeBody = JSON.stringify(budgetNoticeOf(keyCrossing, NOW));

test('a delivery: the event POSTed to the URL, signed so that the published snippet verifies it', async () => {
  const { deps, posted, hidden } = consumer([]);
  expect(await deliverBudgetNotices(eventOf(record(noticeBody, 1)), deps)).toEqual({ batchItemFailures: [] });
  const [delivery] = posted;
  expect(delivery!.url).toBe('https://hooks.example.com/budget?token=t');
  expect(JSON.parse(delivery!.body)).toEqual(budgetNoticeOf(keyCrossing, NOW)!.event);
  expect(delivery!.headers['webhook-id']).toBe('KEY#key_1.2026-11.50');
  expect(delivery!.headers['webhook-timestamp']).toBe(String(NOW.getTime() / 1000));
  expect(verify(SECRET, delivery!.headers, delivery!.body, NOW.getTime())).toBe(true);
  expect(verify(SECRET, delivery!.headers, delivery!.body.replace('5.25', '5.26'), NOW.getTime())).toBe(false);
  expect(verify('whsec_' + Buffer.alloc(32).toString('base64'), delivery!.headers, delivery!.body, NOW.getTime())).toBe(
    false,
  );
  expect(hidden).toEqual([]);
});

test('a failed attempt is left to the queue, hidden for a backoff that doubles; the webhook-id stays', async () => {
  const { deps, posted, hidden } = consumer([
    { kind: 'answered', status: 500 },
    { kind: 'unreachable', reason: 'connect ECONNREFUSED' },
  ]);
  expect(await deliverBudgetNotices(eventOf(record(noticeBody, 1)), deps)).toEqual({
    batchItemFailures: [{ itemIdentifier: 'm1' }],
  });
  expect(await deliverBudgetNotices(eventOf(record(noticeBody, 3)), deps)).toEqual({
    batchItemFailures: [{ itemIdentifier: 'm3' }],
  });
  expect(hidden).toEqual([
    { receiptHandle: 'r1', seconds: 30 },
    { receiptHandle: 'r3', seconds: 120 },
  ]);
  expect(new Set(posted.map((delivery) => delivery.headers['webhook-id']))).toEqual(new Set(['KEY#key_1.2026-11.50']));
});

test('the last attempt that fails is not hidden again: the queue moves it to its dead letters', async () => {
  const { deps, hidden } = consumer([{ kind: 'answered', status: 503 }]);
  expect(await deliverBudgetNotices(eventOf(record(noticeBody, BUDGET_WEBHOOK_ATTEMPTS)), deps)).toEqual({
    batchItemFailures: [{ itemIdentifier: `m${BUDGET_WEBHOOK_ATTEMPTS}` }],
  });
  expect(hidden).toEqual([]);
});

test('an address that is not public is not retried; a malformed message is a failure, not a crash', async () => {
  const { deps, hidden } = consumer([{ kind: 'refused', reason: 'resolves to 10.0.0.1, which is private' }]);
  expect(await deliverBudgetNotices(eventOf(record(noticeBody, 1)), deps)).toEqual({ batchItemFailures: [] });
  expect(await deliverBudgetNotices(eventOf(record('{"id": 1}', 1), record('not json', 2)), deps)).toEqual({
    batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }],
  });
  expect(hidden).toEqual([]);
});
