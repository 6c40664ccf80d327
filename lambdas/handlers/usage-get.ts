import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { parsePeriod, parseUsageFilter, usageReport } from '../usage/usage-report.js';

export const handler = defineHandler('usage-get', {
  handle: async ({ principal, req }) =>
    envelope(await usageReport(principal.accountId, parsePeriod(req.query), parseUsageFilter(req.query))),
});
