import type { GatewayConfiguration } from '../config/configuration.js';
import { logger } from '../config/logger.js';
import { fashionEventView } from '../fashion/fashion-call.js';
import { FASHION_JOB_KIND } from '../fashion/fashion-job-driver.js';
import { videoEventView } from '../media/video-call.js';
import { VIDEO_JOB_KIND } from '../media/video-job-driver.js';
import { ensureWebhookSecrets, signingSecrets } from '../store/webhook-secrets.js';
import { getOwnedJob, recordWebhookDelivery } from './job-repository.js';
import type { JobNotifyDeps } from './notify-step.js';
import { deliverWebhook, WEBHOOK_TIMEOUT_MS } from './webhook-delivery.js';
import { newWebhookSecret } from './webhook-signature.js';

/** Reading the status data (a video's fresh download link) may take this long; the task's 30 s timeout holds it and the delivery. */
const VIEW_TIMEOUT_MS = 15_000;

/**
 * The deployed Notify step's dependencies. An account that never read its secret gets one made
 * at its first delivery (GET /api/v1/webhooks/secret then shows it), so no event goes unsigned.
 */
export function jobNotifyDeps(config: GatewayConfiguration): JobNotifyDeps {
  const signal = AbortSignal.timeout(VIEW_TIMEOUT_MS);
  return {
    jobs: { getOwnedJob, recordWebhookDelivery },
    views: {
      [VIDEO_JOB_KIND]: videoEventView(config, signal),
      [FASHION_JOB_KIND]: fashionEventView(config, signal),
    },
    signingSecrets: async (accountId, now) =>
      signingSecrets(await ensureWebhookSecrets(accountId, newWebhookSecret), now.getTime()),
    deliver: (delivery) =>
      deliverWebhook({ ...delivery, receivers: config.localWebhookReceivers, timeoutMs: WEBHOOK_TIMEOUT_MS }),
    now: () => new Date(),
    log: (message, fields) => logger.info(message, fields),
  };
}
