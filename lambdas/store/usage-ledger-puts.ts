import type { BatchStatementError } from '@aws-sdk/client-dynamodb';
import { retryPauseMs, type DynamoDb } from './dynamodb-client.js';
import { insertStatement, MAX_STATEMENTS_PER_BATCH } from './partiql-insert.js';
import type { UsageEntry } from './usage-items.js';
import { shardedLedgerItem } from './usage-ledger-shards.js';

/**
 * Batch calls in flight at once for one set of entries. A set is at most a coalescer's worth of
 * entries (the request path's) or one retry message's: 50 entries are two calls of 25.
 */
export const LEDGER_CALL_CONCURRENCY = 4;

/**
 * Rounds a statement DynamoDB refused for capacity (its partition throttled, the request rate
 * limit, an internal error) is sent again, backing off as the client does between its own
 * attempts. A statement still refused after them goes to the retry queue with its batch's others.
 */
export const LEDGER_STATEMENT_ROUNDS = 4;

/** Statement errors that may well pass a moment later: nothing about the entry was wrong. */
const TRANSIENT = new Set([
  'ProvisionedThroughputExceeded',
  'ThrottlingError',
  'RequestLimitExceeded',
  'InternalServerError',
  'TransactionConflict',
]);

export interface LedgerTarget {
  readonly db: Pick<DynamoDb, 'batchExecuteStatement'>;
  /** The usage table's physical name. */
  readonly table: string;
  /** Waits between rounds of refused statements (tests pass their own). @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface LedgerPutOutcome {
  /** Entries this call created. */
  readonly written: UsageEntry[];
  /** Entries whose item was already there: an earlier attempt (or a replay) wrote it. */
  readonly present: UsageEntry[];
  /** Entries DynamoDB did not take, even after the client's own retries. */
  readonly failed: { readonly entry: UsageEntry; readonly error: unknown }[];
}

/** A statement DynamoDB answered with an error, as an Error the outcome can carry. */
export class LedgerStatementError extends Error {
  override readonly name = 'LedgerStatementError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

const pause = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * Writes each entry as a PartiQL INSERT on its ledger shard, up to 25 to a BatchExecuteStatement
 * call: created only if no item has its key (`DuplicateItem` otherwise), so retries and replays
 * are no-ops and no write ever overwrites an entry. Each statement is a standard write (one
 * write unit per KB), not a transaction's two. No total: the totals are derived from the ledger
 * off the request path (lambdas/usage/usage-aggregator.ts).
 */
export async function putLedgerEntries(
  entries: readonly UsageEntry[],
  target: LedgerTarget,
): Promise<LedgerPutOutcome> {
  const outcome: LedgerPutOutcome = { written: [], present: [], failed: [] };
  const unique = firstOfEachKey(entries);
  const batches: UsageEntry[][] = [];
  for (let at = 0; at < unique.length; at += MAX_STATEMENTS_PER_BATCH)
    batches.push(unique.slice(at, at + MAX_STATEMENTS_PER_BATCH));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) await insertBatch(batches[next++]!, target, outcome);
  };
  await Promise.all(Array.from({ length: Math.min(LEDGER_CALL_CONCURRENCY, batches.length) }, worker));
  return outcome;
}

/** One batch of at most 25 entries, its refused statements sent again for a few rounds. */
async function insertBatch(batch: readonly UsageEntry[], target: LedgerTarget, outcome: LedgerPutOutcome) {
  let pending = batch.map((entry) => ({ entry, statement: insertStatement(target.table, shardedLedgerItem(entry)) }));
  for (let round = 1; pending.length > 0; round++) {
    let responses;
    try {
      ({ Responses: responses } = await target.db.batchExecuteStatement({
        Statements: pending.map(({ statement }) => statement),
      }));
    } catch (error) {
      // The call itself failed after the client's own retries: nothing is known of its statements.
      for (const { entry } of pending) outcome.failed.push({ entry, error });
      return;
    }
    const again: typeof pending = [];
    for (const [i, write] of pending.entries()) {
      const refusal: BatchStatementError | undefined = responses?.[i]
        ? responses[i].Error
        : { Code: 'InternalServerError', Message: 'no answer for the statement' };
      if (!refusal) outcome.written.push(write.entry);
      else if (refusal.Code === 'DuplicateItem') outcome.present.push(write.entry);
      else if (TRANSIENT.has(refusal.Code ?? '') && round < LEDGER_STATEMENT_ROUNDS) again.push(write);
      else
        outcome.failed.push({
          entry: write.entry,
          error: new LedgerStatementError(refusal.Code ?? 'Unknown', refusal.Message ?? ''),
        });
    }
    pending = again;
    if (pending.length > 0) await (target.sleep ?? pause)(retryPauseMs(round));
  }
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
