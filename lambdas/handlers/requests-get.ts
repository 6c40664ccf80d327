import { defineHandler } from '../http/define-handler.js';
import { notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { ownRequestContent } from '../usage/request-log.js';

export const handler = defineHandler('requests-get', {
  handle: async ({ principal, req }) => {
    const content = await ownRequestContent(principal.accountId, req.pathParams['id'] ?? '');
    if (!content) throw notFound('Request content');
    return envelope(content);
  },
});
