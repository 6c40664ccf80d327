import { Coalescer } from './coalescer.js';
import { dynamo, tableName, toItem, type Item } from './dynamo.js';
import { accountPk, dayKeysEnd, dayKeysStart, type UsageEntry } from './usage-items.js';
import { addDayItem, addLedgerItem, emptySummary, type UsageSummary } from './usage-summary.js';
import { MAX_ENTRIES_PER_TRANSACTION, writeUsageEntries } from './usage-writes.js';
import { writeBehindMs } from './write-behind.js';

export type { UsageEntry } from './usage-items.js';

export type { UsageSummary, UsageTotals } from './usage-summary.js';

/**
 * Writes the entry and adds it to its day total, both or neither: a replay of the same request
 * id and sequence is a no-op, so callers may retry freely. Returns whether this call wrote it.
 */
export async function recordUsage(entry: UsageEntry): Promise<boolean> {
  return (await writeUsageEntries([entry])).has(entry);
}

/**
 * The hot path's writer: concurrent requests' entries share one transaction (their day totals
 * merged into one update per day, model and route). As exact as `recordUsage`: a retry after any
 * failure, even one whose write had in fact landed, never counts an entry twice.
 */
export async function recordUsageBatched(entry: UsageEntry): Promise<void> {
  await entries.add(entry);
}

const entries = new Coalescer<UsageEntry>(
  async (batch) => void (await writeUsageEntries(batch)),
  MAX_ENTRIES_PER_TRANSACTION,
  writeBehindMs(),
);

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/**
 * Usage between two instants, both inclusive. Whole UTC days come from the per-day
 * aggregates (one item per day, model and route); partial days at either edge from the ledger.
 */
export async function summarizeUsage(accountId: string, fromMs: number, toMs: number): Promise<UsageSummary> {
  const summary = emptySummary();
  const firstFullDay = fromMs === startOfDay(fromMs) ? fromMs : startOfDay(fromMs) + DAY_MS;
  const lastFullDayEnd = startOfDay(toMs + 1); // exclusive end of the last whole day
  if (firstFullDay < lastFullDayEnd) {
    await addDays(summary, accountId, dayOf(firstFullDay), dayOf(lastFullDayEnd - DAY_MS));
    if (fromMs < firstFullDay) await addLedger(summary, accountId, fromMs, firstFullDay - 1);
    if (lastFullDayEnd <= toMs) await addLedger(summary, accountId, lastFullDayEnd, toMs);
  } else {
    await addLedger(summary, accountId, fromMs, toMs);
  }
  return summary;
}

async function addDays(summary: UsageSummary, accountId: string, firstDay: string, lastDay: string): Promise<void> {
  for await (const item of queryRange(accountId, dayKeysStart(firstDay), dayKeysEnd(lastDay)))
    addDayItem(summary, item);
}

async function addLedger(summary: UsageSummary, accountId: string, fromMs: number, toMs: number): Promise<void> {
  const from = `LEDGER#${new Date(fromMs).toISOString()}`;
  const to = `LEDGER#${new Date(toMs).toISOString()}#\uffff`;
  for await (const item of queryRange(accountId, from, to)) addLedgerItem(summary, item);
}

async function* queryRange(accountId: string, fromSk: string, toSk: string): AsyncGenerator<Item> {
  let startKey: Item | undefined;
  do {
    const page = await dynamo().query({
      TableName: tableName('usage'),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: toItem({ ':pk': accountPk(accountId), ':from': fromSk, ':to': toSk }),
      ExclusiveStartKey: startKey,
    });
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
