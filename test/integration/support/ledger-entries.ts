import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { LocalGateway } from '../../../local/child-runtime.js';
import { localDynamo } from './ledger.js';

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
 * The ledger entries of one request. Usage is written after the response, so this polls
 * until `expected` entries exist (or returns what is there after the wait).
 */
export async function ledgerEntries(
  gateway: LocalGateway,
  accountId: string,
  requestId: string,
  expected: number,
): Promise<LedgerEntry[]> {
  const dynamo = localDynamo(gateway);
  try {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const page = await dynamo.send(
        new QueryCommand({
          TableName: gateway.aws.tables.usage,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ledger)',
          ExpressionAttributeValues: { ':pk': { S: `ACCOUNT#${accountId}` }, ':ledger': { S: 'LEDGER#' } },
        }),
      );
      const entries = (page.Items ?? [])
        .map((item) => unmarshall(item) as LedgerEntry)
        .filter((e) => e.requestId === requestId);
      if (entries.length >= expected || Date.now() > deadline) return entries.sort((a, b) => a.sequence - b.sequence);
      await new Promise((done) => setTimeout(done, 50));
    }
  } finally {
    dynamo.destroy();
  }
}

/** A per-day aggregate (`DAY#<day>#<model>#<route>`): what the dashboards and summaries read. */
export interface DayTotal {
  day: string;
  model: string;
  /** Absent on totals written before they were kept per route. */
  route?: string;
  requests: number;
  tokens: number;
  costMicroUsd: number;
}

/** Everything stored under an account in the usage table, read once (no waiting). */
export async function accountUsage(
  gateway: LocalGateway,
  accountId: string,
): Promise<{ ledger: LedgerEntry[]; days: DayTotal[] }> {
  const items = await accountItems(gateway, accountId);
  const withPrefix = (prefix: string) => items.filter((item) => String(item['sk']).startsWith(prefix));
  return {
    ledger: withPrefix('LEDGER#') as unknown as LedgerEntry[],
    days: withPrefix('DAY#') as unknown as DayTotal[],
  };
}

/** Every item under an account in the usage table, every page. */
export async function accountItems(gateway: LocalGateway, accountId: string): Promise<Record<string, unknown>[]> {
  const dynamo = localDynamo(gateway);
  const items: Record<string, unknown>[] = [];
  try {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await dynamo.send(
        new QueryCommand({
          TableName: gateway.aws.tables.usage,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: `ACCOUNT#${accountId}` } },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []).map((item) => unmarshall(item)));
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    dynamo.destroy();
  }
  return items;
}
