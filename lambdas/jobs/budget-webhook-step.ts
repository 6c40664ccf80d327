import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { BudgetNotice } from '../usage/budget-notices.js';
import type { WebhookSender } from './webhook-delivery.js';
import { webhookHeaders } from './webhook-signature.js';

/**
 * The budget webhook's consumer (docs/interface.md §6.4): each message of the budget notice
 * queue is one `budget.threshold_crossed` event, POSTed signed to the account's budget webhook
 * as a job's event is (Standard Webhooks, the account's secrets, webhook-delivery.ts's
 * DNS-rebinding-safe connection). A failed attempt is left to the queue: the message is hidden
 * for a backoff that doubles with each receive, and the queue's redrive policy moves it to the
 * dead-letter queue after BUDGET_WEBHOOK_ATTEMPTS receives (lib/constructs/budget-webhooks.ts),
 * whose alarm tells the operator. An address that is not public is not retried: it is refused
 * now and would be in a minute. No AWS and no HTTP client here: they come in as dependencies.
 */

/** Attempts in all: the queue's maxReceiveCount. */
export const BUDGET_WEBHOOK_ATTEMPTS = 6;
/** SQS's longest visibility timeout. */
const MAX_VISIBILITY_SECONDS = 43_200;

export interface BudgetWebhookDeps extends WebhookSender {
  /** Hides the received message for `seconds` (SQS ChangeMessageVisibility). */
  readonly hide: (receiptHandle: string, seconds: number) => Promise<void>;
  /** The first retry's wait; each later one doubles it. */
  readonly backoffSeconds: number;
  readonly now: () => Date;
  /** One line per attempt: never the URL (it may hold a token), the body or a secret. */
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
}

/** The wait before the attempt after `attempt` (1-based). */
export const budgetWebhookBackoff = (backoffSeconds: number, attempt: number): number =>
  Math.min(MAX_VISIBILITY_SECONDS, backoffSeconds * 2 ** (attempt - 1));

function noticeOf(body: string): BudgetNotice {
  const notice = JSON.parse(body) as Partial<BudgetNotice>;
  if (
    typeof notice.id !== 'string' ||
    typeof notice.accountId !== 'string' ||
    typeof notice.url !== 'string' ||
    notice.event?.type !== 'budget.threshold_crossed'
  )
    throw new Error('not a budget notice');
  return notice as BudgetNotice;
}

/** One attempt: whether it is settled (delivered, or refused for good). */
async function attempt(notice: BudgetNotice, attemptNumber: number, deps: BudgetWebhookDeps): Promise<boolean> {
  const now = deps.now();
  const body = JSON.stringify(notice.event);
  const message = { id: notice.id, timestamp: Math.floor(now.getTime() / 1000), body };
  const headers = webhookHeaders(message, await deps.signingSecrets(notice.accountId, now));
  const started = Date.now();
  const answer = await deps.deliver({ url: notice.url, headers, body });
  const fields = {
    webhookId: notice.id,
    accountId: notice.accountId,
    attempt: attemptNumber,
    durationMs: Date.now() - started,
    ...(answer.kind === 'answered' ? { status: answer.status } : { outcome: answer.kind, reason: answer.reason }),
  };
  if (answer.kind === 'answered' && answer.status >= 200 && answer.status < 300) {
    deps.log('info', 'budget webhook delivered', fields);
    return true;
  }
  if (answer.kind === 'refused') {
    deps.log('warn', 'budget webhook refused: its address is not public; not retried', fields);
    return true;
  }
  const last = attemptNumber >= BUDGET_WEBHOOK_ATTEMPTS;
  deps.log(
    last ? 'error' : 'warn',
    last ? 'budget webhook failed for good; the event goes to the dead-letter queue' : 'budget webhook attempt failed',
    fields,
  );
  return false;
}

export async function deliverBudgetNotices(event: SQSEvent, deps: BudgetWebhookDeps): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const attemptNumber = Number(record.attributes.ApproximateReceiveCount) || 1;
      try {
        if (await attempt(noticeOf(record.body), attemptNumber, deps)) return;
        if (attemptNumber < BUDGET_WEBHOOK_ATTEMPTS)
          await deps.hide(record.receiptHandle, budgetWebhookBackoff(deps.backoffSeconds, attemptNumber));
      } catch (error) {
        // A malformed message, or the secrets unreadable: the queue's retries, then its dead letters.
        deps.log('error', 'budget webhook message not handled', {
          messageId: record.messageId,
          attempt: attemptNumber,
          error: (error as Error).message,
        });
      }
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }),
  );
  return { batchItemFailures };
}
