import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { parsePeriod, parseUsageFilter, USAGE_QUERY, ownUsageReport } from '../usage/usage-report.js';

export const handler = defineHandler('usage-get', {
  query: USAGE_QUERY,
  handle: async ({ principal, req }) =>
    envelope(await ownUsageReport(principal.accountId, parsePeriod(req.query), parseUsageFilter(req.query))),
});
