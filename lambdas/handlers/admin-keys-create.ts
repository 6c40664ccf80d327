import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { assertOriginsFitType, issueKey } from '../identity/issue-key.js';
import { describeIssuedKey } from '../identity/key-view.js';
import { ADMIN_CREATE_KEY_BODY, type AdminCreateKeyBody } from '../identity/key-schemas.js';
import { getAccount } from '../store/accounts.js';

const body = compile<AdminCreateKeyBody>(ADMIN_CREATE_KEY_BODY);

export const handler = defineHandler('admin-keys-create', {
  body,
  handle: async ({ body: request }) => {
    assertOriginsFitType(request.type, request.allowedOrigins);
    if (!(await getAccount(request.accountId))) throw notFound('Account');
    return envelope(describeIssuedKey(await issueKey(request)), 201);
  },
});
