import { toItem, type Item } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';
import { ledgerShardPks } from './usage-ledger-shards.js';

/** Shards queried at once: a read of all 32 takes 4 rounds of round trips, not 32. */
export const LEDGER_READ_CONCURRENCY = 8;

export interface UsageTableReader {
  readonly db: Pick<DynamoDb, 'query'>;
  /** The usage table's physical name. */
  readonly table: string;
}

/** Every item of one partition whose sort key lies in [fromSk, toSk], page by page. */
export async function* queryPartition(
  reader: UsageTableReader,
  pk: string,
  fromSk: string,
  toSk: string,
): AsyncGenerator<Item> {
  let startKey: Item | undefined;
  do {
    const page = await reader.db.query({
      TableName: reader.table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: toItem({ ':pk': pk, ':from': fromSk, ':to': toSk }),
      ExclusiveStartKey: startKey,
    });
    yield* page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * Visits every ledger entry of an account between two instants, both inclusive, in all its
 * shards (in no particular order: callers add them up).
 */
export async function visitLedgerShards(
  reader: UsageTableReader,
  accountId: string,
  fromMs: number,
  toMs: number,
  visit: (item: Item) => void,
): Promise<void> {
  const from = `LEDGER#${new Date(fromMs).toISOString()}`;
  const to = `LEDGER#${new Date(toMs).toISOString()}#\uffff`;
  const pks = ledgerShardPks(accountId);
  let next = 0;
  const worker = async () => {
    while (next < pks.length) {
      for await (const item of queryPartition(reader, pks[next++]!, from, to)) visit(item);
    }
  };
  await Promise.all(Array.from({ length: LEDGER_READ_CONCURRENCY }, worker));
}
