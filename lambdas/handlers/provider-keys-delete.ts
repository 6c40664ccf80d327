import { forgetStoredKeys } from '../chat/provider-credentials.js';
import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { noContent } from '../http/reply.js';
import { deleteProviderKeySecret } from '../store/provider-key-secrets.js';
import { deleteProviderKey, getProviderKey, releaseSlug } from '../store/provider-keys.js';

/** The secret goes first: once it is gone the key cannot be used, whatever happens next. */
export const handler = defineHandler('provider-keys-delete', {
  handle: async ({ principal, req }) => {
    const accountId = principal.accountId;
    const record = await getProviderKey(req.pathParams['id'] ?? '');
    if (!record || record.accountId !== accountId) throw notFound('Provider key');
    await deleteProviderKeySecret(record.secretId);
    await deleteProviderKey(record);
    await releaseSlug(accountId, record.slug);
    forgetStoredKeys(accountId);
    return noContent();
  },
});
