import { Coalescer } from './coalescer.js';
import type { UsageEntry } from './usage-items.js';
import { recordLedgerEntries, type LedgerTarget, type RetrySender } from './usage-ledger-puts.js';
import { writeBehindMs } from './write-behind.js';

/**
 * Entries a coalesced batch holds at most: concurrent requests' entries are put together
 * (LEDGER_PUT_CONCURRENCY at a time), and a batch's failures make one retry message.
 */
export const MAX_ENTRIES_PER_LEDGER_BATCH = 50;

/**
 * The request path's usage sink for the sharded ledger: each entry joins the batch of entries
 * metered around the same time, and resolves once it is in the ledger or in the retry queue.
 * It rejects (UsageNotRecordedError) only when both refused it.
 */
export function batchedLedgerWriter(
  deps: LedgerTarget & { readonly sendToRetryQueue: RetrySender },
  delayMs = writeBehindMs(),
): (entry: UsageEntry) => Promise<void> {
  const batches = new Coalescer<UsageEntry>(
    async (batch) => void (await recordLedgerEntries(batch, deps)),
    MAX_ENTRIES_PER_LEDGER_BATCH,
    delayMs,
  );
  return (entry) => batches.add(entry);
}
