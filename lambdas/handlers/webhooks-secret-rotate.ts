import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { rotatedWebhookSecret } from '../jobs/webhook-secret-view.js';

export const handler = defineHandler('webhooks-secret-rotate', {
  handle: async ({ principal }) => envelope(await rotatedWebhookSecret(principal.accountId)),
});
