import type { DynamoDBRecord } from 'aws-lambda';
import { DynamoDbError, TransactionCanceledError, type DynamoDb } from '../store/dynamodb-client.js';
import { checkpointAdvance, compareSequence, isSequenceNumber, readCheckpoint } from '../store/usage-checkpoints.js';
import { TotalsDeltas, totalsUpdate } from '../store/usage-totals.js';
import { ledgerEntryOf } from './stream-ledger-records.js';

/** TransactWriteItems takes 100 actions: the checkpoint and at most this many totals items. */
export const MAX_TOTALS_PER_TRANSACTION = 99;
/**
 * Backoff one invocation may spend waiting out contention, throttling or an unknown outcome
 * before its records go back to the mapping: well inside the function's 120 s timeout (a round's
 * own calls take a few seconds at worst). Each redelivery counts against the mapping's retry
 * attempts and the last one sends the batch to the failure queue, so throughput trouble must
 * be waited out here, for long enough to outlast a partition's throttling (10 deliveries of
 * 45 s of backoff: minutes), not given up on after a few seconds.
 */
export const AGGREGATOR_RETRY_BUDGET_MS = 45_000;
const BACKOFF_BASE_MS = 25;
const BACKOFF_CAP_MS = 5_000;

/** A cancellation reason that says "try again": another transaction held an item, or capacity ran out. */
const BUSY_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);
const BUSY_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TransactionInProgressException',
  'InternalServerError',
  'ServiceUnavailable',
]);

export interface AggregatorDeps {
  readonly db: Pick<DynamoDb, 'getItem' | 'transactWriteItems'>;
  /** The usage table's physical name. */
  readonly table: string;
  readonly sleep: (ms: number) => Promise<void>;
  /** In [0, 1): the backoff's jitter. */
  readonly random: () => number;
  /** Rounds at most, whatever the budget says (tests use it to give up sooner). @default no bound */
  readonly maxRounds?: number;
  /** Backoff slept at most, summed over the rounds. @default AGGREGATOR_RETRY_BUDGET_MS */
  readonly retryBudgetMs?: number;
}

/** Records of one stream shard, as the event source mapping delivers them. */
export interface ShardBatch {
  readonly shardId: string;
  readonly records: readonly DynamoDBRecord[];
}

export interface AggregationOutcome {
  /** Ledger entries whose deltas this call added to the totals. */
  readonly applied: number;
  /** Records at or below the shard's checkpoint: applied by an earlier delivery. */
  readonly alreadyApplied: number;
  /** Sequence numbers of the records not applied, oldest first: the mapping delivers them again. */
  readonly failed: readonly string[];
  /** Why records were left, when some were. */
  readonly error?: unknown;
}

/** A record without a sequence number cannot be ordered against the checkpoint. */
export class UnorderedRecordError extends Error {
  override readonly name = 'UnorderedRecordError';
}

interface Sequenced {
  readonly sequence: string;
  readonly record: DynamoDBRecord;
}

/**
 * Adds a shard batch's new ledger entries to the totals, each exactly once however often the
 * batch is delivered. The shard's checkpoint (usage-checkpoints.ts) says up to which record
 * the totals already hold; records at or below it are skipped, and the rest are applied in
 * order, in transactions that each add up to MAX_TOTALS_PER_TRANSACTION summed deltas and move
 * the checkpoint to the last record they cover, on condition that it is still where it was read.
 *
 * Assumes what the event source mapping guarantees with ParallelizationFactor 1: a batch holds
 * records of one shard, in the order they were written, and a shard's next batch starts after
 * the last record its previous batch acknowledged.
 *
 * Conflicts, throttling and answers lost on the way are retried here with backoff (after an
 * unknown outcome the checkpoint is read again: it tells whether the transaction landed).
 * What still fails is returned in `failed`, never dropped.
 */
export async function aggregateShardBatch(batch: ShardBatch, deps: AggregatorDeps): Promise<AggregationOutcome> {
  const records = inOrder(batch.records);
  const maxRounds = deps.maxRounds ?? Number.POSITIVE_INFINITY;
  const budgetMs = deps.retryBudgetMs ?? AGGREGATOR_RETRY_BUDGET_MS;
  let waitedMs = 0;
  let checkpoint: string | undefined;
  let checkpointKnown = false;
  let done = 0;
  let rounds = 0;
  let applied = 0;
  let alreadyApplied = 0;
  let error: unknown;

  const retryLater = async (cause: unknown): Promise<boolean> => {
    error = cause;
    if (++rounds >= maxRounds) return false;
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(rounds, 20));
    // Jitter from half the ceiling up, so the budget bounds the rounds however the dice fall.
    const delay = Math.floor(ceiling / 2 + (deps.random() * ceiling) / 2);
    if (waitedMs + delay > budgetMs) return false;
    waitedMs += delay;
    await deps.sleep(delay);
    return true;
  };

  while (done < records.length) {
    if (!checkpointKnown) {
      try {
        checkpoint = await readCheckpoint(deps.db, deps.table, batch.shardId);
        checkpointKnown = true;
      } catch (cause) {
        if (isBusy(cause) && (await retryLater(cause))) continue;
        error = cause;
        break;
      }
    }
    while (
      done < records.length &&
      checkpoint !== undefined &&
      compareSequence(records[done]!.sequence, checkpoint) <= 0
    ) {
      done++;
      alreadyApplied++;
    }
    if (done >= records.length) break;

    let chunk: Chunk;
    try {
      chunk = nextChunk(records, done);
    } catch (cause) {
      // The first record left cannot be read: nothing after it may be applied before it is.
      error = cause;
      break;
    }
    if (chunk.deltas.size === 0) {
      // Nothing to count (totals and checkpoint writes): no write, so the aggregator's own
      // writes never make stream records that make more writes.
      done = chunk.end;
      continue;
    }
    const last = records[chunk.end - 1]!.sequence;
    try {
      await deps.db.transactWriteItems({
        TransactItems: [
          ...chunk.deltas.all().map((delta) => totalsUpdate(delta, deps.table)),
          checkpointAdvance(deps.table, batch.shardId, checkpoint, last),
        ],
      });
      checkpoint = last;
      done = chunk.end;
      applied += chunk.entries;
    } catch (cause) {
      if (cause instanceof TransactionCanceledError) {
        const codes = cause.reasons.map((reason) => reason.Code ?? 'None');
        // The checkpoint is the last action: if its condition failed, another delivery of this
        // shard moved it; read it again and go on from there.
        if (codes[codes.length - 1] === 'ConditionalCheckFailed') checkpointKnown = false;
        else if (!codes.some((code) => BUSY_REASONS.has(code))) {
          error = cause;
          break;
        }
      } else if (isBusy(cause)) {
        // The transaction may have landed with its answer lost: the checkpoint says.
        checkpointKnown = false;
      } else {
        error = cause;
        break;
      }
      if (!(await retryLater(cause))) break;
    }
  }
  return {
    applied,
    alreadyApplied,
    failed: records.slice(done).map((r) => r.sequence),
    ...(error === undefined || done >= records.length ? {} : { error }),
  };
}

interface Chunk {
  /** Index after the chunk's last record. */
  readonly end: number;
  readonly deltas: TotalsDeltas;
  /** Ledger entries in the chunk. */
  readonly entries: number;
}

/**
 * The records from `start` whose deltas fit one transaction. Ends before a record that would
 * need one totals item too many, or that cannot be read (it is then the next chunk's first,
 * and reading it throws there).
 */
function nextChunk(records: readonly Sequenced[], start: number): Chunk {
  const deltas = new TotalsDeltas();
  let entries = 0;
  let end = start;
  for (; end < records.length; end++) {
    let entry;
    try {
      entry = ledgerEntryOf(records[end]!.record);
    } catch (error) {
      if (end === start) throw error;
      break;
    }
    if (entry === undefined) continue;
    if (deltas.size + deltas.newItemsOf(entry) > MAX_TOTALS_PER_TRANSACTION) break;
    deltas.add(entry);
    entries++;
  }
  return { end, deltas, entries };
}

function inOrder(records: readonly DynamoDBRecord[]): Sequenced[] {
  return records
    .map((record) => {
      const sequence = record.dynamodb?.SequenceNumber;
      if (!isSequenceNumber(sequence))
        throw new UnorderedRecordError(`a stream record has no sequence number (${record.eventID})`);
      return { sequence, record };
    })
    .sort((a, b) => compareSequence(a.sequence, b.sequence));
}

/** Worth another round: capacity, contention, or an outcome not known (a cut connection, a timeout). */
function isBusy(error: unknown): boolean {
  if (!(error instanceof DynamoDbError)) return true;
  return BUSY_ERRORS.has(error.name) || error.status >= 500;
}
