import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { forgetApiKey } from '../identity/key-directory.js';
import { UPDATE_KEY_BODY } from '../identity/key-schemas.js';
import { updateApiKey, type ApiKeyChanges } from '../store/api-keys.js';

const body = compile<ApiKeyChanges>(UPDATE_KEY_BODY as never);

export const handler = defineHandler('keys-update', {
  body,
  handle: async ({ body: changes, principal, req }) => {
    const keyId = req.pathParams['id'] ?? '';
    if (!(await updateApiKey(principal.accountId, keyId, changes))) throw notFound('API key');
    forgetApiKey(keyId);
    return envelope({ keyId, updated: true });
  },
});
