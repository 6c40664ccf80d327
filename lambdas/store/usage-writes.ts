import { dynamo } from './dynamo.js';
import { TransactionCanceledError } from './dynamodb-client.js';
import { dayDeltas, dayUpdate, ledgerPut, type UsageEntry } from './usage-items.js';

/**
 * TransactWriteItems takes at most 100 actions: one ledger put per entry plus at most one
 * day-total update per entry (fewer when entries share a day, model and route).
 */
export const MAX_ENTRIES_PER_TRANSACTION = 50;
/** Rounds lost to contention (another transaction on the same day total, throttling). */
const MAX_BUSY_ROUNDS = 5;
const BUSY = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * Writes ledger entries and adds them to their day totals in one transaction, so a day total
 * changes exactly when its entries are written. Each ledger put is conditioned on its key
 * being new: a replayed entry (a retry whose earlier attempt committed, a restart that
 * re-sends) cancels the transaction, and the entries named by the cancellation are dropped and
 * the rest written with their deltas recomputed. Returns the entries this call wrote.
 */
export async function writeUsageEntries(entries: readonly UsageEntry[]): Promise<Set<UsageEntry>> {
  if (entries.length > MAX_ENTRIES_PER_TRANSACTION)
    throw new Error(`at most ${MAX_ENTRIES_PER_TRANSACTION} usage entries per transaction`);
  let pending = firstOfEachKey(entries);
  const refused: string[] = [];
  for (let busyRounds = 0; pending.length > 0;) {
    try {
      await dynamo().transactWriteItems({
        TransactItems: [...pending.map(ledgerPut), ...dayDeltas(pending).map(dayUpdate)],
      });
      break;
    } catch (error) {
      if (!(error instanceof TransactionCanceledError)) throw error;
      // Ledger puts come first, so reason i is entry i's.
      const faults = pending.map((_, i) => error.reasons[i]?.Code ?? 'None');
      const dropped = (fault: string) => fault !== 'None' && !BUSY.has(fault);
      pending.forEach((entry, i) => {
        if (dropped(faults[i]!) && faults[i] !== 'ConditionalCheckFailed')
          refused.push(`${entry.requestId}#${entry.sequence}: ${faults[i]}`);
      });
      const progress = faults.some(dropped);
      pending = pending.filter((_, i) => !dropped(faults[i]!));
      if (progress) continue;
      if (!error.reasons.some((reason) => BUSY.has(reason.Code ?? '')) || ++busyRounds >= MAX_BUSY_ROUNDS) throw error;
      await new Promise((done) => setTimeout(done, Math.random() * 20 * 2 ** busyRounds));
    }
  }
  // The others are written; retrying them all is safe (they are replays now).
  if (refused.length > 0) throw new Error(`DynamoDB refused usage entries ${refused.join(', ')}`);
  return new Set(pending);
}

/** One transaction may not name an item twice; a repeated key is a replay of the first. */
function firstOfEachKey(entries: readonly UsageEntry[]): UsageEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = `${entry.accountId}\n${entry.at}\n${entry.requestId}\n${entry.sequence}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
