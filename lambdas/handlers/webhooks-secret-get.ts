import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { currentWebhookSecret } from '../jobs/webhook-secret-view.js';

export const handler = defineHandler('webhooks-secret-get', {
  handle: async ({ principal }) => envelope(await currentWebhookSecret(principal.accountId)),
});
