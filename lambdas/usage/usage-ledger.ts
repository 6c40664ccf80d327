import { configuration } from '../config/configuration.js';
import { deploymentRetrySender } from './usage-retry-queue.js';
import { dynamo, tableName } from '../store/dynamo.js';
import type { DynamoDb } from '../store/dynamodb-client.js';
import type { UsageEntry } from '../store/usage-items.js';
import { batchedLedgerWriter } from '../store/usage-ledger-writer.js';
import { putLedgerEntries } from '../store/usage-ledger-puts.js';
import { summarizeTotals, type UsageFilter } from '../store/usage-totals-summary.js';
import type { UsageSummary } from '../store/usage-summary.js';

export type { UsageEntry } from '../store/usage-items.js';
export type { UsageSummary, UsageTotals } from '../store/usage-summary.js';
export type { UsageFilter } from '../store/usage-totals-summary.js';

/**
 * The deployed ledger: entries are appended to the account's ledger shards (one PartiQL INSERT
 * each, batched, usage-ledger-puts.ts); totals are derived from them off the request path by
 * the aggregator (lambdas/usage/usage-aggregator.ts), and reports read the totals.
 */

/**
 * Writes one entry now, for callers that retry on their own (a job's settle step, which Step
 * Functions retries): true when this call wrote it, false when it was already there (a replay
 * of the same request id and sequence). Throws when DynamoDB did not take it.
 */
export async function recordUsage(entry: UsageEntry): Promise<boolean> {
  const outcome = await putLedgerEntries([entry], { db: dynamo(), table: tableName('usage') });
  const failure = outcome.failed[0];
  if (failure) throw failure.error;
  return outcome.written.length === 1;
}

let batched: ((entry: UsageEntry) => Promise<void>) | undefined;

/**
 * The request path's writer, run after the response: concurrent requests' entries are put
 * together, and those DynamoDB does not take go to the usage retry queue, whose redrive writes
 * them later. Resolves once the entry is in the ledger or in the queue.
 */
export function recordUsageBatched(entry: UsageEntry): Promise<void> {
  batched ??= batchedLedgerWriter({
    db: dynamo(),
    table: tableName('usage'),
    sendToRetryQueue: deploymentRetrySender(configuration()),
  });
  return batched(entry);
}

/**
 * Usage between two instants, both inclusive, from the totals only (day totals for whole days,
 * hour totals for the hours at either edge): callers resolve their period to whole hours first
 * (usage-report.ts), so the cost of a report does not grow with the entries it covers. Read
 * with `db`: the account's tenant session for its own report, the function role for the admin's.
 */
export function summarizeUsage(
  db: Pick<DynamoDb, 'query'>,
  accountId: string,
  fromMs: number,
  toMs: number,
  filter: UsageFilter = {},
): Promise<UsageSummary> {
  return summarizeTotals({ db, table: tableName('usage') }, accountId, fromMs, toMs, filter);
}
