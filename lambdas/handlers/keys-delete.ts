import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { noContent } from '../http/reply.js';
import { forgetApiKey } from '../identity/key-directory.js';
import { revokeApiKey } from '../store/api-keys.js';

export const handler = defineHandler('keys-delete', {
  handle: async ({ principal, req }) => {
    const keyId = req.pathParams['id'] ?? '';
    if (!(await revokeApiKey(keyId, principal.accountId))) throw notFound('API key');
    forgetApiKey(keyId);
    return noContent();
  },
});
