import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import { issueKey } from '../identity/issue-key.js';
import { describeIssuedKey } from '../identity/key-view.js';
import { CREATE_KEY_BODY, type CreateKeyBody } from '../identity/key-schemas.js';

const body = compile<CreateKeyBody>(CREATE_KEY_BODY);

export const handler = defineHandler('keys-create', {
  body,
  handle: async ({ body: request, principal }) => {
    const type = request.type ?? 'secret';
    const issued = await issueKey({ ...request, type, accountId: principal.accountId });
    return envelope(describeIssuedKey(issued), 201);
  },
});
