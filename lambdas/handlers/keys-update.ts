import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { forgetApiKey } from '../identity/key-directory.js';
import { keyChangesOf, UPDATE_KEY_BODY, type UpdateKeyBody } from '../identity/key-schemas.js';
import { describeUpdatedKey } from '../identity/key-view.js';
import { updateApiKey } from '../store/api-keys.js';

const body = compile<UpdateKeyBody>(UPDATE_KEY_BODY);

export const handler = defineHandler('keys-update', {
  body,
  handle: async ({ body: request, principal, req }) => {
    const keyId = req.pathParams['id'] ?? '';
    const updated = await updateApiKey(principal.accountId, keyId, keyChangesOf(request));
    if (!updated) throw notFound('API key');
    forgetApiKey(keyId);
    return envelope(await describeUpdatedKey(updated));
  },
});
