import { Coalescer } from './coalescer.js';
import { dynamo, fromItem, tableName, toItem, type Item } from './dynamo.js';
import { accountPk, daySk, type UsageEntry } from './usage-items.js';
import { MAX_ENTRIES_PER_TRANSACTION, writeUsageEntries } from './usage-writes.js';
import { writeBehindMs } from './write-behind.js';

export type { UsageEntry } from './usage-items.js';

export interface UsageTotals {
  requests: number;
  tokens: number;
  costMicroUsd: number;
  /** Requests (and their tokens) of models the catalog has no price for: counted at cost 0. */
  unpricedRequests: number;
  unpricedTokens: number;
}

/** One day-total item or one ledger entry, as a summary adds it. */
interface Counted extends UsageTotals {
  readonly model: string;
}

export interface UsageSummary extends UsageTotals {
  readonly byModel: Record<string, UsageTotals>;
}

/**
 * Writes the entry and adds it to its day total, both or neither: a replay of the same request
 * id and sequence is a no-op, so callers may retry freely. Returns whether this call wrote it.
 */
export async function recordUsage(entry: UsageEntry): Promise<boolean> {
  return (await writeUsageEntries([entry])).has(entry);
}

/**
 * The hot path's writer: concurrent requests' entries share one transaction (their day totals
 * merged into one update per day and model). As exact as `recordUsage`: a retry after any
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
 * aggregates (one item per day and model); partial days at either edge from the ledger.
 */
export async function summarizeUsage(accountId: string, fromMs: number, toMs: number): Promise<UsageSummary> {
  const summary: UsageSummary = { ...zero(), byModel: {} };
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
  for await (const item of queryRange(accountId, daySk(firstDay, ''), daySk(lastDay, '\uffff'))) {
    const day = fromItem<Omit<Counted, 'unpricedRequests' | 'unpricedTokens'> & Partial<Counted>>(item);
    // Totals written before unpriced usage was counted have no such attributes.
    add(summary, { ...day, unpricedRequests: day.unpricedRequests ?? 0, unpricedTokens: day.unpricedTokens ?? 0 });
  }
}

async function addLedger(summary: UsageSummary, accountId: string, fromMs: number, toMs: number): Promise<void> {
  const from = `LEDGER#${new Date(fromMs).toISOString()}`;
  const to = `LEDGER#${new Date(toMs).toISOString()}#\uffff`;
  for await (const item of queryRange(accountId, from, to)) {
    const entry = fromItem<{ model: string; totalTokens: number; costMicroUsd: number; priced?: boolean }>(item);
    // Entries written before `priced` existed carry no flag: they were metered as priced.
    const unpriced = entry.priced === false;
    add(summary, {
      model: entry.model,
      requests: 1,
      tokens: entry.totalTokens,
      costMicroUsd: entry.costMicroUsd,
      unpricedRequests: unpriced ? 1 : 0,
      unpricedTokens: unpriced ? entry.totalTokens : 0,
    });
  }
}

const zero = (): UsageTotals => ({ requests: 0, tokens: 0, costMicroUsd: 0, unpricedRequests: 0, unpricedTokens: 0 });

function add(summary: UsageSummary, counted: Counted): void {
  for (const totals of [summary, (summary.byModel[counted.model] ??= zero())]) {
    totals.requests += counted.requests;
    totals.tokens += counted.tokens;
    totals.costMicroUsd += counted.costMicroUsd;
    totals.unpricedRequests += counted.unpricedRequests;
    totals.unpricedTokens += counted.unpricedTokens;
  }
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
