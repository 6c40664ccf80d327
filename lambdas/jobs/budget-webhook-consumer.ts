import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { configuration, required, type GatewayConfiguration } from '../config/configuration.js';
import { ENV } from '../config/environment.js';
import { logger } from '../config/logger.js';
import { ensureWebhookSecrets, signingSecrets } from '../store/webhook-secrets.js';
import { deploymentQueueOptions, sqsQueueCall } from '../usage/usage-retry-queue.js';
import { deliverBudgetNotices, type BudgetWebhookDeps } from './budget-webhook-step.js';
import { deliverWebhook, WEBHOOK_TIMEOUT_MS } from './webhook-delivery.js';
import { newWebhookSecret } from './webhook-signature.js';

/**
 * The deployed budget webhook consumer's dependencies. An account that never read its secret
 * gets one made at its first event (GET /api/v1/webhooks/secret then shows it), as the job
 * webhooks' Notify step does, so no event goes unsigned.
 */
export function budgetWebhookDeps(config: GatewayConfiguration): BudgetWebhookDeps {
  const queue = sqsQueueCall(
    deploymentQueueOptions(config, required(config.budgetNoticeQueueUrl, ENV.budgetNoticeQueueUrl)),
  );
  return {
    signingSecrets: async (accountId, now) =>
      signingSecrets(await ensureWebhookSecrets(accountId, newWebhookSecret), now.getTime()),
    deliver: (delivery) =>
      deliverWebhook({ ...delivery, receivers: config.localWebhookReceivers, timeoutMs: WEBHOOK_TIMEOUT_MS }),
    hide: (receiptHandle, seconds) =>
      queue('ChangeMessageVisibility', { ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }),
    backoffSeconds: config.budgetWebhookBackoffSeconds,
    now: () => new Date(),
    log: (level, message, fields) => logger[level](message, fields),
  };
}

/** Lambda handler: the budget notice queue (an SQS event source mapping with ReportBatchItemFailures). */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> =>
  deliverBudgetNotices(event, budgetWebhookDeps(configuration()));
