import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { compile } from '../schema/compile.js';
import type { KeyType } from '../store/api-keys.js';
import { describeIssuedKey, issueKey } from '../identity/issue-key.js';
import { CREATE_KEY_BODY } from '../identity/key-schemas.js';

interface CreateKeyBody {
  name?: string;
  rateLimit?: number;
  /** Extension: dashboards may also mint publishable keys for their own sites. */
  type?: KeyType;
  allowedOrigins?: string[];
}

const body = compile<CreateKeyBody>(CREATE_KEY_BODY as never);

export const handler = defineHandler('keys-create', {
  body,
  handle: async ({ body: request, principal }) => {
    const type = request.type ?? 'secret';
    const issued = await issueKey({ ...request, type, accountId: principal.accountId });
    return envelope(describeIssuedKey(issued), 201);
  },
});
