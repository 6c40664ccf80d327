import type { AttributeValue as StreamValue, DynamoDBRecord } from 'aws-lambda';
import type {
  BatchExecuteStatementCommandInput,
  BatchExecuteStatementCommandOutput,
  BatchStatementRequest,
} from '@aws-sdk/client-dynamodb';
import type { Item } from '../../lambdas/store/dynamo.js';
import { DynamoDbError, TransactionCanceledError, type DynamoDb } from '../../lambdas/store/dynamodb-client.js';

/**
 * What DynamoDB Streams would make of the writes a test does: one INSERT record per item a put
 * created (not per call: a refused conditional put makes none, a put whose answer was lost on
 * the way back makes one), spread over stream shards by partition key as DynamoDB spreads
 * partitions, with sequence numbers that grow within each shard.
 */
export class SimulatedStream {
  readonly shards: DynamoDBRecord[][];
  private static nextSequence = 10n ** 20n;

  constructor(
    shardCount: number,
    readonly arn = 'arn:aws:dynamodb:us-east-1:000000000000:table/usage/stream/2026-01-01T00:00:00.000',
  ) {
    this.shards = Array.from({ length: shardCount }, () => []);
  }

  /** Appends a record of `item` to the shard its partition key falls in. */
  append(item: Item, eventName: 'INSERT' | 'MODIFY' | 'REMOVE' = 'INSERT'): DynamoDBRecord {
    const pk = item['pk']?.S ?? '';
    const shard = this.shards[hash(pk) % this.shards.length]!;
    const sequence = String(SimulatedStream.nextSequence++);
    const image = streamImage(item);
    const record: DynamoDBRecord = {
      eventID: `ev-${sequence}`,
      eventName,
      eventSource: 'aws:dynamodb',
      eventSourceARN: this.arn,
      eventVersion: '1.1',
      awsRegion: 'us-east-1',
      dynamodb: {
        Keys: { pk: image['pk']!, sk: image['sk']! },
        ...(eventName === 'REMOVE' ? {} : { NewImage: image }),
        SequenceNumber: sequence,
        SizeBytes: JSON.stringify(item).length,
        StreamViewType: 'NEW_IMAGE',
      },
    };
    shard.push(record);
    return record;
  }
}

/** A stream image has the same JSON shape as an item of string, number and boolean attributes. */
const streamImage = (item: Item) => JSON.parse(JSON.stringify(item)) as Record<string, StreamValue>;

function hash(text: string): number {
  let h = 7;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
  return h;
}

/**
 * What a ledger call may suffer: `fail` answers a 500 without writing anything; `lose-answer`
 * writes, then fails as a cut connection; `throttle-odd` writes the even statements and answers
 * the odd ones (second, fourth, ...) as a throttled partition's, unwritten.
 */
export type PutFault = 'fail' | 'lose-answer' | 'throttle-odd';

/** The item a ledger INSERT statement (lambdas/store/partiql-insert.ts) writes: its names, its parameters. */
export function itemOfInsert(statement: BatchStatementRequest): Item {
  const names = [...(statement.Statement ?? '').matchAll(/'((?:[^']|'')*)':\?/g)].map((m) =>
    m[1]!.replaceAll("''", "'"),
  );
  return Object.fromEntries(names.map((name, i) => [name, statement.Parameters![i]!])) as Item;
}

/**
 * The ledger writer's client: inserts go to the embedded DynamoDB, and each item an insert
 * created goes to the stream. Faults are taken one per call from `faults` (none when it is empty).
 */
export function streamingPuts(db: DynamoDb, stream: SimulatedStream, faults: PutFault[] = []) {
  return {
    /** Calls made, and the statements each carried. */
    calls: [] as number[],
    async batchExecuteStatement(input: BatchExecuteStatementCommandInput): Promise<BatchExecuteStatementCommandOutput> {
      const statements = input.Statements ?? [];
      this.calls.push(statements.length);
      const fault = faults.shift();
      if (fault === 'fail') throw new DynamoDbError('InternalServerError', 'injected', 500);
      const sent = fault === 'throttle-odd' ? statements.filter((_, i) => i % 2 === 0) : statements;
      const answer = sent.length > 0 ? await db.batchExecuteStatement({ Statements: sent }) : { Responses: [] };
      sent.forEach((statement, i) => {
        if (!answer.Responses?.[i]?.Error) stream.append(itemOfInsert(statement));
      });
      if (fault === 'lose-answer') throw new Error('socket hang up (injected)');
      if (fault !== 'throttle-odd') return answer as BatchExecuteStatementCommandOutput;
      const throttled = { Error: { Code: 'ProvisionedThroughputExceeded' as const, Message: 'injected throttle' } };
      return {
        $metadata: {},
        Responses: statements.map((_, i) => (i % 2 === 0 ? answer.Responses![i / 2]! : throttled)),
      };
    },
  };
}

export type TransactionFault = 'conflict' | 'throttle' | 'lose-answer' | 'none';

/**
 * The aggregator's client: reads and transactions go to the embedded DynamoDB, with a fault
 * taken per transaction from `faults`: `conflict` cancels it as DynamoDB does when another
 * transaction holds an item, `throttle` refuses it for capacity, `lose-answer` applies it and
 * then fails as a cut connection. Counts the transactions that reached the database.
 */
export function faultyTransactions(db: DynamoDb, faults: TransactionFault[] = []) {
  const client = {
    transactions: 0,
    reads: 0,
    getItem: (input: Parameters<DynamoDb['getItem']>[0]) => {
      client.reads++;
      return db.getItem(input);
    },
    async transactWriteItems(input: Parameters<DynamoDb['transactWriteItems']>[0]) {
      const fault = faults.shift() ?? 'none';
      const actions = input.TransactItems ?? [];
      if (fault === 'conflict')
        throw new TransactionCanceledError(
          'Transaction cancelled (injected)',
          400,
          actions.map((_, i) => ({ Code: i === 0 ? 'TransactionConflict' : 'None' })),
        );
      if (fault === 'throttle')
        throw new DynamoDbError('ProvisionedThroughputExceededException', 'injected throttle', 400);
      const answer = await db.transactWriteItems(input);
      client.transactions++;
      if (fault === 'lose-answer') throw new Error('socket hang up (injected)');
      return answer;
    },
  };
  return client;
}
