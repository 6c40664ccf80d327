import { defineHandler } from '../http/define-handler.js';
import { envelope } from '../http/reply.js';
import { accountIdOf } from '../identity/principal.js';
import { parsePeriod, parseUsageFilter, usageReport } from '../usage/usage-report.js';

export const handler = defineHandler('usage-get', {
  handle: async ({ principal, req }) =>
    envelope(await usageReport(accountIdOf(principal), parsePeriod(req.query), parseUsageFilter(req.query))),
});
