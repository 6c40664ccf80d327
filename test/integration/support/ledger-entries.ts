import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ledgerShardPks } from '../../../lambdas/store/usage-ledger-shards.js';
import { totalsPk } from '../../../lambdas/store/usage-totals.js';
import type { LocalGateway } from '../../../local/child-runtime.js';
import { localDynamo } from './ledger.js';
import { until } from './poll.js';

export interface LedgerEntry {
  requestId: string;
  sequence: number;
  model: string;
  provider: string;
  promptTokens: number;
  completionTokens: number;
  costMicroUsd: number;
  estimated: boolean;
  cached: boolean;
  status: number;
  outcome: string;
}

/**
 * The ledger entries of one request (from every ledger shard). Usage is written after the
 * response, so this polls until `expected` entries exist (or returns what is there after
 * the polls of `until`).
 */
export async function ledgerEntries(
  gateway: LocalGateway,
  accountId: string,
  requestId: string,
  expected: number,
): Promise<LedgerEntry[]> {
  const entries = await until(
    async () => (await ledgerItems(gateway, accountId)).filter((e) => e.requestId === requestId),
    (found) => found.length >= expected,
  );
  return entries.sort((a, b) => a.sequence - b.sequence);
}

/** Every ledger entry of an account, from all its shards. */
export async function ledgerItems(gateway: LocalGateway, accountId: string): Promise<LedgerEntry[]> {
  const items = await partitionItems(gateway, ledgerShardPks(accountId));
  return items.filter((item) => item['type'] === 'ledger') as unknown as LedgerEntry[];
}

/**
 * A day total the aggregator derives from the ledger (`DAY#<day>#<model>#<route>#<keyId>` in
 * the account's totals partition): what reports read.
 */
export interface DayTotal {
  day: string;
  model: string;
  route: string;
  keyId?: string;
  requests: number;
  tokens: number;
  costMicroUsd: number;
}

/** An account's ledger entries and day totals, read once (no waiting). */
export async function accountUsage(
  gateway: LocalGateway,
  accountId: string,
): Promise<{ ledger: LedgerEntry[]; days: DayTotal[] }> {
  const items = await accountItems(gateway, accountId);
  return {
    ledger: items.filter((item) => item['type'] === 'ledger') as unknown as LedgerEntry[],
    days: items.filter((item) => item['type'] === 'day') as unknown as DayTotal[],
  };
}

/** Every usage item of an account: its ledger shards and its totals partition, every page. */
export function accountItems(gateway: LocalGateway, accountId: string): Promise<Record<string, unknown>[]> {
  return partitionItems(gateway, [...ledgerShardPks(accountId), totalsPk(accountId)]);
}

async function partitionItems(gateway: LocalGateway, pks: readonly string[]): Promise<Record<string, unknown>[]> {
  return (await storedItems(gateway, pks)).map((item) => unmarshall(item));
}

/** Every item of the given usage-table partitions in its stored (typed) form, every page, read consistently. */
export async function storedItems(
  gateway: LocalGateway,
  pks: readonly string[],
): Promise<Record<string, AttributeValue>[]> {
  const dynamo = localDynamo(gateway);
  const items: Record<string, AttributeValue>[] = [];
  try {
    for (const pk of pks) {
      let start: Record<string, AttributeValue> | undefined;
      do {
        const page = await dynamo.send(
          new QueryCommand({
            TableName: gateway.aws.tables.usage,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: pk } },
            ExclusiveStartKey: start,
            ConsistentRead: true,
          }),
        );
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
    }
  } finally {
    dynamo.destroy();
  }
  return items;
}
