import { defineHandler } from '../http/define-handler.js';
import { badRequest, notFound } from '../http/errors.js';
import { envelope } from '../http/reply.js';
import { getAccount } from '../store/accounts.js';
import { parsePeriod, parseUsageFilter, USAGE_QUERY, accountUsageReport } from '../usage/usage-report.js';

export const handler = defineHandler('admin-usage-get', {
  query: ['accountId', ...USAGE_QUERY],
  handle: async ({ req }) => {
    const accountId = req.query['accountId'];
    if (!accountId) throw badRequest('accountId', 'accountId: is required');
    const period = parsePeriod(req.query);
    const filter = parseUsageFilter(req.query);
    if (!(await getAccount(accountId))) throw notFound('Account');
    return envelope({ accountId, ...(await accountUsageReport(accountId, period, filter)) });
  },
});
