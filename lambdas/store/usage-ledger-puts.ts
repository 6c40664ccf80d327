import { isConditionFailure } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';
import type { UsageEntry } from './usage-items.js';
import { shardedLedgerItem } from './usage-ledger-shards.js';

/**
 * Puts in flight at once for one batch. A batch is at most a coalescer's worth of entries (the
 * request path's) or one retry message's; 16 keeps a batch to a few round trips without
 * opening more sockets than the client's pool holds for everything else.
 */
export const LEDGER_PUT_CONCURRENCY = 16;

export interface LedgerTarget {
  readonly db: Pick<DynamoDb, 'putItem'>;
  /** The usage table's physical name. */
  readonly table: string;
}

export interface LedgerPutOutcome {
  /** Entries this call created. */
  readonly written: UsageEntry[];
  /** Entries whose item was already there: an earlier attempt (or a replay) wrote it. */
  readonly present: UsageEntry[];
  /** Entries DynamoDB did not take, even after the client's own retries. */
  readonly failed: { readonly entry: UsageEntry; readonly error: unknown }[];
}

/**
 * Writes each entry as one conditional PutItem on its ledger shard: created only if no item has
 * its key, so retries and replays are no-ops and no write ever overwrites an entry. No
 * transaction and no total: the totals are derived from the ledger off the request path
 * (lambdas/usage/usage-aggregator.ts). BatchWriteItem cannot carry a condition, so the puts go
 * one by one, at most LEDGER_PUT_CONCURRENCY at a time.
 */
export async function putLedgerEntries(
  entries: readonly UsageEntry[],
  target: LedgerTarget,
): Promise<LedgerPutOutcome> {
  const outcome: LedgerPutOutcome = { written: [], present: [], failed: [] };
  const unique = firstOfEachKey(entries);
  let next = 0;
  const worker = async () => {
    while (next < unique.length) {
      const entry = unique[next++]!;
      try {
        await target.db.putItem({
          TableName: target.table,
          Item: shardedLedgerItem(entry),
          ConditionExpression: 'attribute_not_exists(pk)',
        });
        outcome.written.push(entry);
      } catch (error) {
        if (isConditionFailure(error)) outcome.present.push(entry);
        else outcome.failed.push({ entry, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LEDGER_PUT_CONCURRENCY, unique.length) }, worker));
  return outcome;
}

/** Hands entries whose puts failed to a durable queue that writes them later (usage-redrive.ts). */
export type RetrySender = (entries: readonly UsageEntry[]) => Promise<void>;

/** Neither the ledger nor the retry queue took these entries: the caller must keep them (log them whole). */
export class UsageNotRecordedError extends Error {
  override readonly name = 'UsageNotRecordedError';
  constructor(
    readonly entries: readonly UsageEntry[],
    options: { cause: unknown },
  ) {
    super(`${entries.length} usage entries reached neither the ledger nor the retry queue`, options);
  }
}

/**
 * The request path's writer (run after the response): puts the entries, and sends those
 * DynamoDB did not take to the retry queue, so an entry is never dropped. Resolves once every
 * entry is in the ledger or in the queue; rejects with UsageNotRecordedError only when the
 * queue refused them as well.
 */
export async function recordLedgerEntries(
  entries: readonly UsageEntry[],
  deps: LedgerTarget & { readonly sendToRetryQueue: RetrySender },
): Promise<LedgerPutOutcome> {
  const outcome = await putLedgerEntries(entries, deps);
  if (outcome.failed.length > 0) {
    const failed = outcome.failed.map(({ entry }) => entry);
    try {
      await deps.sendToRetryQueue(failed);
    } catch (error) {
      throw new UsageNotRecordedError(failed, { cause: error });
    }
  }
  return outcome;
}

/** One put per key: a repeated key in one batch is a replay of the first. */
function firstOfEachKey(entries: readonly UsageEntry[]): UsageEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = `${entry.accountId}\n${entry.at}\n${entry.requestId}\n${entry.sequence}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
