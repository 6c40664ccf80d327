import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { describeKeys } from '../identity/key-view.js';
import { listApiKeys } from '../store/api-keys.js';

export const handler = defineHandler('keys-list', {
  handle: async ({ principal }) => envelope({ keys: await describeKeys(await listApiKeys(principal.accountId)) }),
});
