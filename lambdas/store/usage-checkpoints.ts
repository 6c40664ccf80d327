import type { TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { fromItem, toItem } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';

/**
 * Where the aggregator has got to in each stream shard: the sequence number of the last record
 * whose deltas are in the totals. It moves in the same transaction as those deltas, so the
 * totals contain exactly the records up to it, and a record at or below it is never applied again.
 */
export const CHECKPOINT_PK = 'AGGREGATOR';

const checkpointKey = (shardId: string) => toItem({ pk: CHECKPOINT_PK, sk: shardId });

/** The shard's last applied sequence number; undefined before its first batch. */
export async function readCheckpoint(
  db: Pick<DynamoDb, 'getItem'>,
  table: string,
  shardId: string,
): Promise<string | undefined> {
  const { Item } = await db.getItem({ TableName: table, Key: checkpointKey(shardId), ConsistentRead: true });
  return Item ? fromItem<{ lastSequence?: string }>(Item).lastSequence : undefined;
}

/**
 * Moves the checkpoint from `from` (what the writer read; undefined: none yet) to `to`, and
 * fails the transaction it is part of if anyone moved it since: a concurrent or replayed
 * invocation for the same shard then cannot apply the same records too.
 */
export function checkpointAdvance(
  table: string,
  shardId: string,
  from: string | undefined,
  to: string,
): TransactWriteItem {
  return {
    Update: {
      TableName: table,
      Key: checkpointKey(shardId),
      UpdateExpression: 'SET lastSequence = :to, #type = :type',
      ConditionExpression: from === undefined ? 'attribute_not_exists(lastSequence)' : 'lastSequence = :from',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: toItem({
        ':to': to,
        ':type': 'checkpoint',
        ...(from === undefined ? {} : { ':from': from }),
      }),
    },
  };
}

const DIGITS = /^\d{1,64}$/;

/** DynamoDB Streams sequence numbers are decimal strings of varying length: compared as numbers. */
export function compareSequence(a: string, b: string): number {
  const x = a.replace(/^0+/, '');
  const y = b.replace(/^0+/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isSequenceNumber = (value: unknown): value is string => typeof value === 'string' && DIGITS.test(value);
