import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { describeProviderKey } from '../identity/provider-key-view.js';
import { listProviderKeys } from '../store/provider-keys.js';

export const handler = defineHandler('provider-keys-list', {
  handle: async ({ principal }) =>
    envelope({ keys: (await listProviderKeys(principal.accountId)).map(describeProviderKey) }),
});
