import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { describeKey } from '../identity/issue-key.js';
import { listApiKeys } from '../store/api-keys.js';

export const handler = defineHandler('keys-list', {
  handle: async ({ principal }) => {
    const records = await listApiKeys(principal.accountId);
    return envelope({ keys: records.map(describeKey) });
  },
});
