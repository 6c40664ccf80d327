import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { describeKey } from '../identity/issue-key.js';
import { accountIdOf } from '../identity/principal.js';
import { listApiKeys } from '../store/api-keys.js';

export const handler = defineHandler('keys-list', {
  handle: async ({ principal }) => {
    const records = await listApiKeys(accountIdOf(principal));
    return envelope({ keys: records.map(describeKey) });
  },
});
