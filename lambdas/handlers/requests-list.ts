import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { ownRequestLog, parseRequestLogQuery, REQUEST_LOG_QUERY } from '../usage/request-log.js';

export const handler = defineHandler('requests-list', {
  query: REQUEST_LOG_QUERY,
  handle: async ({ principal, req }) =>
    envelope(await ownRequestLog(principal.accountId, parseRequestLogQuery(req.query))),
});
