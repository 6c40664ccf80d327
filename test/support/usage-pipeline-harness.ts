import type { DynamoDBRecord } from 'aws-lambda';
import { USAGE_UNITS } from '../../lambdas/catalog/unit-prices.js';
import { fromItem } from '../../lambdas/store/dynamo.js';
import type { DynamoDb } from '../../lambdas/store/dynamodb-client.js';
import {
  addEntry,
  unitsAttribute,
  zeroCounters,
  type Counters,
  type UsageEntry,
} from '../../lambdas/store/usage-items.js';
import { queryPartition, visitLedgerShards } from '../../lambdas/store/usage-ledger-reads.js';
import { NO_KEY_ID, totalsPk } from '../../lambdas/store/usage-totals.js';
import type { AggregatorEvent, AggregatorResponse } from '../../lambdas/usage/usage-aggregator.js';
import { readUsageEntry } from '../../lambdas/usage/usage-entry-reader.js';

/** A chat entry of `accountId`; override any field. */
export const usageEntry = (overrides: Partial<UsageEntry> = {}): UsageEntry => ({
  requestId: 'req-1',
  sequence: 0,
  accountId: 'acc-1',
  keyId: 'key-1',
  route: 'chat-completions',
  model: 'gpt-5',
  provider: 'openai',
  promptTokens: 10,
  completionTokens: 5,
  costMicroUsd: 100,
  priced: true,
  estimated: false,
  cached: false,
  status: 200,
  outcome: 'ok',
  at: '2026-07-01T10:00:00.000Z',
  ...overrides,
});

/** Counters as plain numbers, units flattened to `units_<unit>`: what two sides of an equality compare. */
export type Sums = Record<string, number>;

const flat = (counters: Counters): Sums => ({
  requests: counters.requests,
  tokens: counters.tokens,
  promptTokens: counters.promptTokens,
  completionTokens: counters.completionTokens,
  costMicroUsd: counters.costMicroUsd,
  unpricedRequests: counters.unpricedRequests,
  unpricedTokens: counters.unpricedTokens,
  ...Object.fromEntries(USAGE_UNITS.map((unit) => [unitsAttribute(unit), counters.units[unit] ?? 0])),
});

/** What entries add up to, per `<day> <model> <route> <keyId>` (grain `day`) or `<hour> ...` (grain `hour`). */
export function sumsOf(entries: readonly UsageEntry[], grain: 'day' | 'hour' = 'day'): Record<string, Sums> {
  const counters = new Map<string, Counters>();
  for (const entry of entries) {
    const key = `${entry.at.slice(0, grain === 'day' ? 10 : 13)} ${entry.model} ${entry.route} ${entry.keyId ?? NO_KEY_ID}`;
    const sum = counters.get(key) ?? zeroCounters();
    addEntry(sum, entry);
    counters.set(key, sum);
  }
  return Object.fromEntries([...counters].map(([key, sum]) => [key, flat(sum)]));
}

export interface UsageTable {
  readonly db: DynamoDb;
  readonly table: string;
}

/** The account's totals items of one grain, keyed as sumsOf keys them. */
export async function totalsOf(
  { db, table }: UsageTable,
  accountId: string,
  grain: 'day' | 'hour' = 'day',
): Promise<Record<string, Sums>> {
  const prefix = grain === 'day' ? 'DAY#' : 'HOUR#';
  const totals: Record<string, Sums> = {};
  for await (const item of queryPartition({ db, table }, totalsPk(accountId), prefix, `${prefix}\uffff`)) {
    const values = fromItem<Record<string, string | number>>(item);
    const [, period] = String(values['sk']).split('#');
    const key = `${period} ${values['model']} ${values['route']} ${values['keyId'] ?? NO_KEY_ID}`;
    totals[key] = Object.fromEntries(
      Object.keys(flat(zeroCounters())).map((name) => [name, Number(values[name] ?? 0)]),
    );
  }
  return totals;
}

/** Every entry in the account's ledger shards. */
export async function ledgerEntriesOf({ db, table }: UsageTable, accountId: string): Promise<UsageEntry[]> {
  const entries: UsageEntry[] = [];
  await visitLedgerShards({ db, table }, accountId, 0, Date.parse('2100-01-01'), (item) =>
    entries.push(readUsageEntry(fromItem<Record<string, unknown>>(item))),
  );
  return entries;
}

export interface Delivery {
  /** Records per batch, taken in turn (the last one repeats). @default [10] */
  readonly batchSizes?: readonly number[];
  /** Delivers each batch this many times over (a response lost on the way back). @default 1 */
  readonly deliveries?: number;
}

/**
 * Delivers a shard's records as an event source mapping with ParallelizationFactor 1 does: in
 * order, batch after batch, a batch again from its first reported failure. Returns the number
 * of invocations; throws if the records are not all acknowledged within `maxInvocations`.
 */
export async function deliverShard(
  records: readonly DynamoDBRecord[],
  shardId: string,
  invoke: (event: AggregatorEvent) => Promise<AggregatorResponse>,
  { batchSizes = [10], deliveries = 1 }: Delivery = {},
  maxInvocations = 1_000,
): Promise<number> {
  let position = 0;
  let invocations = 0;
  for (let batchNo = 0; position < records.length; batchNo++) {
    const size = batchSizes[Math.min(batchNo, batchSizes.length - 1)]!;
    const batch = records.slice(position, position + size);
    let response: AggregatorResponse | undefined;
    for (let copy = 0; copy < deliveries; copy++) {
      if (++invocations > maxInvocations)
        throw new Error(`shard ${shardId} not drained in ${maxInvocations} invocations`);
      response = await invoke({ Records: [...batch], shardId, eventSourceARN: batch[0]?.eventSourceARN });
    }
    const failed = new Set(response!.batchItemFailures.map((failure) => failure.itemIdentifier));
    const firstFailed = batch.findIndex((record) => failed.has(record.dynamodb!.SequenceNumber!));
    position += firstFailed === -1 ? batch.length : firstFailed;
  }
  return invocations;
}
