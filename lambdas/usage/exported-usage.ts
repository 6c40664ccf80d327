import { fromItem, type Item } from '../store/dynamo.js';
import { accountPk } from '../store/usage-items.js';
import { isLedgerShardPk } from '../store/usage-ledger-shards.js';
import { addLedgerItem, emptySummary } from '../store/usage-summary.js';
import { reportOf, type Period } from './usage-report.js';

/**
 * The usage record (the one GET /api/v1/usage answers) of one account and period, added up
 * from exported items: every ledger entry whose request started within the period, both ends
 * inclusive. Day totals are not used: the ledger is what finance reconciles, entry by entry.
 * Entries of the account's partition and of its ledger shards (`ACCOUNT#<id>#L<n>`) both count.
 */
export function exportedUsageReport(items: Iterable<Item>, accountId: string, period: Period) {
  const summary = emptySummary();
  const pk = accountPk(accountId);
  const isAccountLedger = (itemPk: string | undefined) =>
    itemPk === pk || (itemPk?.startsWith(`${pk}#L`) === true && isLedgerShardPk(itemPk));
  for (const item of items) {
    if (!isAccountLedger(item['pk']?.S) || item['type']?.S !== 'ledger') continue;
    const at = Date.parse(fromItem<{ at: string }>(item).at);
    if (at >= period.fromMs && at <= period.toMs) addLedgerItem(summary, item);
  }
  return reportOf(summary, period);
}
