import { batchedPut } from './batch-writes.js';
import { Coalescer } from './coalescer.js';
import { writeBehindMs } from './write-behind.js';
import { dynamo, fromItem, isConditionFailure, tableName, toItem, type Item } from './dynamo.js';

/**
 * One metered event: an upstream attempt or a cache hit. Items are flat (ids, ISO times,
 * integers) so that the table's export to S3 reads cleanly for finance.
 */
export interface UsageEntry {
  readonly requestId: string;
  /** Distinguishes several metered events of one request (retries, fallbacks, arena agents). */
  readonly sequence: number;
  readonly accountId: string;
  readonly keyId?: string;
  readonly route: string;
  readonly model: string;
  readonly provider?: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Integer micro-USD: sums stay exact. */
  readonly costMicroUsd: number;
  /** True when tokens were estimated because the provider reported none. */
  readonly estimated: boolean;
  readonly cached: boolean;
  /** The upstream's HTTP status (200 for answers and cache hits; 0 when none was received). */
  readonly status: number;
  /** `ok`, `cache_hit`, or the failure class (`rate_limit`, `timeout`, ...). */
  readonly outcome?: string;
  /** When the request started (ISO 8601); fixed per request so rewrites hit the same item. */
  readonly at: string;
}

export interface UsageTotals {
  requests: number;
  tokens: number;
  costMicroUsd: number;
}

export interface UsageSummary extends UsageTotals {
  readonly byModel: Record<string, UsageTotals>;
}

const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;
const ledgerSk = (at: string, requestId: string, sequence: number) =>
  `LEDGER#${at}#${requestId}#${String(sequence).padStart(4, '0')}`;
const daySk = (day: string, model: string) => `DAY#${day}#${model}`;

/**
 * Writes the entry once: a replay of the same request id and sequence is a no-op, so callers
 * may retry freely. Only a first write adds to the per-day aggregate. Returns whether this
 * call wrote it.
 */
export async function recordUsage(entry: UsageEntry): Promise<boolean> {
  try {
    await dynamo().putItem({
      TableName: tableName('usage'),
      Item: ledgerItem(entry),
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  await addToDay([dayDelta(entry)]);
  return true;
}

/**
 * The hot path's writer: the ledger item goes out in a BatchWriteItem shared with concurrent
 * requests (an unconditional put of a deterministic key, so a replay rewrites the same item),
 * and the day totals of concurrent requests are merged into one update per day and model.
 * Each entry must be handed over once (the Meter does); `recordUsage` is the strictly
 * idempotent path for callers that may repeat themselves.
 */
export async function recordUsageBatched(entry: UsageEntry): Promise<void> {
  await batchedPut(tableName('usage'), ledgerItem(entry));
  await dayTotals.add(dayDelta(entry));
}

function ledgerItem(entry: UsageEntry): Item {
  return toItem({
    pk: accountPk(entry.accountId),
    sk: ledgerSk(entry.at, entry.requestId, entry.sequence),
    type: 'ledger',
    ...entry,
    totalTokens: entry.promptTokens + entry.completionTokens,
    costUsd: entry.costMicroUsd / 1e6,
    day: entry.at.slice(0, 10),
  });
}

interface DayDelta {
  readonly accountId: string;
  readonly day: string;
  readonly model: string;
  requests: number;
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  costMicroUsd: number;
}

function dayDelta(entry: UsageEntry): DayDelta {
  return {
    accountId: entry.accountId,
    day: entry.at.slice(0, 10),
    model: entry.model,
    requests: 1,
    tokens: entry.promptTokens + entry.completionTokens,
    promptTokens: entry.promptTokens,
    completionTokens: entry.completionTokens,
    costMicroUsd: entry.costMicroUsd,
  };
}

const dayTotals = new Coalescer<DayDelta>(addToDay, 100, writeBehindMs());

/** One ADD per day and model, however many entries the batch holds for it. */
async function addToDay(deltas: DayDelta[]): Promise<void> {
  const merged = new Map<string, DayDelta>();
  for (const delta of deltas) {
    const key = `${delta.accountId}\n${delta.day}\n${delta.model}`;
    const sum = merged.get(key);
    if (!sum) merged.set(key, { ...delta });
    else {
      sum.requests += delta.requests;
      sum.tokens += delta.tokens;
      sum.promptTokens += delta.promptTokens;
      sum.completionTokens += delta.completionTokens;
      sum.costMicroUsd += delta.costMicroUsd;
    }
  }
  await Promise.all([...merged.values()].map(updateDay));
}

async function updateDay(delta: DayDelta): Promise<void> {
  await dynamo().updateItem({
    TableName: tableName('usage'),
    Key: toItem({ pk: accountPk(delta.accountId), sk: daySk(delta.day, delta.model) }),
    UpdateExpression:
      'ADD requests :requests, tokens :tokens, promptTokens :prompt, completionTokens :completion, costMicroUsd :cost SET #type = :type, accountId = :account, #day = :day, model = :model',
    ExpressionAttributeNames: { '#type': 'type', '#day': 'day' },
    ExpressionAttributeValues: toItem({
      ':requests': delta.requests,
      ':tokens': delta.tokens,
      ':prompt': delta.promptTokens,
      ':completion': delta.completionTokens,
      ':cost': delta.costMicroUsd,
      ':type': 'day',
      ':account': delta.accountId,
      ':day': delta.day,
      ':model': delta.model,
    }),
  });
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/**
 * Usage between two instants, both inclusive. Whole UTC days come from the per-day
 * aggregates (one item per day and model); partial days at either edge from the ledger.
 */
export async function summarizeUsage(accountId: string, fromMs: number, toMs: number): Promise<UsageSummary> {
  const summary: UsageSummary = { requests: 0, tokens: 0, costMicroUsd: 0, byModel: {} };
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
    const day = fromItem<{ model: string; requests: number; tokens: number; costMicroUsd: number }>(item);
    add(summary, day.model, day.requests, day.tokens, day.costMicroUsd);
  }
}

async function addLedger(summary: UsageSummary, accountId: string, fromMs: number, toMs: number): Promise<void> {
  const from = `LEDGER#${new Date(fromMs).toISOString()}`;
  const to = `LEDGER#${new Date(toMs).toISOString()}#\uffff`;
  for await (const item of queryRange(accountId, from, to)) {
    const entry = fromItem<{ model: string; totalTokens: number; costMicroUsd: number }>(item);
    add(summary, entry.model, 1, entry.totalTokens, entry.costMicroUsd);
  }
}

function add(summary: UsageSummary, model: string, requests: number, tokens: number, costMicroUsd: number): void {
  summary.requests += requests;
  summary.tokens += tokens;
  summary.costMicroUsd += costMicroUsd;
  const byModel = (summary.byModel[model] ??= { requests: 0, tokens: 0, costMicroUsd: 0 });
  byModel.requests += requests;
  byModel.tokens += tokens;
  byModel.costMicroUsd += costMicroUsd;
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
