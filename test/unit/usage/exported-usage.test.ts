import { accountPk, ledgerItem } from '../../../lambdas/store/usage-items.js';
import { shardedLedgerItem } from '../../../lambdas/store/usage-ledger-shards.js';
import { totalsUpdate, TotalsDeltas } from '../../../lambdas/store/usage-totals.js';
import { exportedUsageReport } from '../../../lambdas/usage/exported-usage.js';
import { usageEntry } from '../../support/usage-pipeline-harness.js';

const period = { fromMs: Date.parse('2026-07-01T00:00:00Z'), toMs: Date.parse('2026-07-01T23:59:59.999Z') };

test("an export counts the account's entries in its partition and in its ledger shards, and nothing else", () => {
  const mine = [0, 1, 2].map((i) =>
    usageEntry({ accountId: 'a', requestId: `x-${i}`, promptTokens: 1, completionTokens: 0 }),
  );
  const deltas = new TotalsDeltas();
  mine.forEach((entry) => deltas.add(entry));
  const totalsItems = deltas.all().map((delta) => {
    const update = totalsUpdate(delta, 'usage').Update!;
    return { ...update.Key, type: { S: delta.grain } };
  });
  const items = [
    ledgerItem(mine[0]!, accountPk('a')), // the unsharded ledger's (before shards)
    shardedLedgerItem(mine[1]!),
    shardedLedgerItem(mine[2]!),
    // Another account whose id starts with this one's, and the derived totals: not counted.
    shardedLedgerItem(usageEntry({ accountId: 'ab', requestId: 'y' })),
    ...totalsItems,
  ];
  const report = exportedUsageReport(items, 'a', period);
  expect(report.totalRequests).toBe(3);
  expect(report.totalTokens).toBe(3);
});
