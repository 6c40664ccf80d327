import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { forgetApiKey } from '../identity/key-directory.js';
import { UPDATE_KEY_BODY } from '../identity/key-schemas.js';
import { accountIdOf } from '../identity/principal.js';
import { updateApiKey, type ApiKeyChanges } from '../store/api-keys.js';

const body = compile<ApiKeyChanges>(UPDATE_KEY_BODY);

export const handler = defineHandler<ApiKeyChanges>('keys-update', {
  body,
  handle: async ({ body: changes, principal, req }) => {
    const keyId = req.pathParams['id'] ?? '';
    if (!(await updateApiKey(accountIdOf(principal), keyId, changes))) throw notFound('API key');
    forgetApiKey(keyId);
    return envelope({ keyId, updated: true });
  },
});
