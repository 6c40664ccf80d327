import {
  BatchExecuteStatementCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggedCall } from '../../../bench/scale-model.js';
import { insertStatement } from '../../../lambdas/store/partiql-insert.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';

/**
 * The embedded DynamoDB's detailed call log (local/dynamodb-latency.mjs), which the scale
 * benchmark derives capacity per partition key from: what each call touched and how big it was.
 */

let dataDir: string;
let db: LocalDynamoDb;
let client: DynamoDBClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dynalite-calls-'));
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'calls', latencyMs: 1 });
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}, 30_000);

afterAll(async () => {
  client.destroy();
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const calls = async (): Promise<LoggedCall[]> =>
  ((await (await fetch(`${db.endpoint}/__local/calls`)).json()) as { calls: LoggedCall[] }).calls;

/** DynamoDB's item size: attribute names plus string values (all ASCII here). */
const sizeOf = (item: Record<string, { S: string }>) =>
  Object.entries(item).reduce((sum, [name, value]) => sum + name.length + value.S.length, 0);

test('without the detailed switch, each call is logged by operation and arrival only', async () => {
  await calls();
  const before = performance.timeOrigin + performance.now();
  await client.send(new GetItemCommand({ TableName: db.tableNames.cache, Key: { pk: { S: 'A' }, sk: { S: 'B' } } }));
  const [logged, ...more] = await calls();
  expect(more).toEqual([]);
  expect(Object.keys(logged!).sort()).toEqual(['at', 'operation']);
  expect(logged!.operation).toBe('GetItem');
  expect(logged!.at).toBeGreaterThanOrEqual(before - 1);
});

describe('detailed', () => {
  beforeAll(async () => {
    expect((await fetch(`${db.endpoint}/__local/calls/detailed`, { method: 'POST' })).status).toBe(204);
    await calls();
  });

  test('a put names its table, partition and size, and the index partition it lands in', async () => {
    const item = {
      pk: { S: 'KEY#k1' },
      sk: { S: 'KEY' },
      ownerPk: { S: 'ACCOUNT#a1' },
      ownerSk: { S: 'KEY#k1' },
      name: { S: 'x'.repeat(100) },
    };
    await client.send(new PutItemCommand({ TableName: db.tableNames.identity, Item: item }));
    expect(await calls()).toEqual([
      expect.objectContaining({
        operation: 'PutItem',
        status: 200,
        items: [
          { table: db.tableNames.identity, pk: 'KEY#k1', access: 'write', bytes: sizeOf(item) },
          { table: db.tableNames.identity, index: 'byOwner', pk: 'ACCOUNT#a1', access: 'write', bytes: sizeOf(item) },
        ],
      }),
    ]);
  });

  test('a batch of INSERTs names each item it created, and not one whose key was taken', async () => {
    const entry = (sk: string) => ({ pk: { S: 'ACCOUNT#a2#L3' }, sk: { S: sk }, type: { S: 'ledger' } });
    await client.send(new PutItemCommand({ TableName: db.tableNames.usage, Item: entry('taken') }));
    await calls();
    await client.send(
      new BatchExecuteStatementCommand({
        Statements: ['new-1', 'taken', 'new-2'].map((sk) => insertStatement(db.tableNames.usage, entry(sk))),
      }),
    );
    expect(await calls()).toEqual([
      expect.objectContaining({
        operation: 'BatchExecuteStatement',
        status: 200,
        items: ['new-1', 'new-2'].map((sk) => ({
          table: db.tableNames.usage,
          pk: 'ACCOUNT#a2#L3',
          access: 'write',
          bytes: sizeOf(entry(sk)),
        })),
      }),
    ]);
  });

  test('an update is sized by the whole item it leaves, read back after the call', async () => {
    const key = { pk: { S: 'ACCOUNT#a1' }, sk: { S: 'DAY#1' } };
    const big = 'y'.repeat(3000);
    await client.send(new PutItemCommand({ TableName: db.tableNames.usage, Item: { ...key, big: { S: big } } }));
    await calls();
    await client.send(
      new UpdateItemCommand({
        TableName: db.tableNames.usage,
        Key: key,
        UpdateExpression: 'SET note = :n',
        ExpressionAttributeValues: { ':n': { S: 'z' } },
      }),
    );
    const [update] = await calls();
    expect(update!.items).toEqual([
      {
        table: db.tableNames.usage,
        pk: 'ACCOUNT#a1',
        access: 'write',
        bytes: sizeOf({ ...key, big: { S: big }, note: { S: 'z' } }),
      },
    ]);
  });

  test('reads are sized by what they returned; a Query is one read of everything, on its partition', async () => {
    const table = db.tableNames.usage;
    await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'ACCOUNT#a1' }, sk: { S: 'DAY#1' } } }));
    await client.send(
      new GetItemCommand({
        TableName: table,
        Key: { pk: { S: 'ACCOUNT#none' }, sk: { S: 'X' } },
        ConsistentRead: true,
      }),
    );
    await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': 'pk' },
        ExpressionAttributeValues: { ':p': { S: 'ACCOUNT#a1' } },
      }),
    );
    const [found, missing, query] = await calls();
    const size = found!.items![0]!.bytes;
    expect(size).toBeGreaterThan(3000);
    expect(found!.items).toEqual([{ table, pk: 'ACCOUNT#a1', access: 'read', bytes: size }]);
    expect(missing!.items).toEqual([{ table, pk: 'ACCOUNT#none', access: 'read', bytes: 0, consistent: true }]);
    expect(query!.items).toEqual([{ table, pk: 'ACCOUNT#a1', access: 'read', bytes: size }]);
  });

  test('batch writes name every item, and a transaction marks its items transactional; a failed condition is logged with its error', async () => {
    const table = db.tableNames.cache;
    const put = (pk: string) => ({ PutRequest: { Item: { pk: { S: pk }, sk: { S: 'V' } } } });
    await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: [put('RESPONSE#1'), put('RESPONSE#2')] } }));
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { pk: { S: 'LEDGER#1' }, sk: { S: 'E' } } } },
          {
            Update: {
              TableName: table,
              Key: { pk: { S: 'TOTAL#1' }, sk: { S: 'T' } },
              UpdateExpression: 'ADD n :one',
              ExpressionAttributeValues: { ':one': { N: '1' } },
            },
          },
        ],
      }),
    );
    await client
      .send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: { S: 'RATE#1' }, sk: { S: 'W' } },
          UpdateExpression: 'SET n = :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      )
      .catch((error: Error) => expect(error.name).toBe('ConditionalCheckFailedException'));
    const [batch, transaction, refused] = await calls();
    expect(batch!.items!.map((i) => [i.pk, i.access, i.bytes])).toEqual([
      ['RESPONSE#1', 'write', 15],
      ['RESPONSE#2', 'write', 15],
    ]);
    expect(transaction).toMatchObject({ operation: 'TransactWriteItems', status: 200 });
    expect(transaction!.items!.map((i) => [i.pk, i.transactional])).toEqual([
      ['LEDGER#1', true],
      ['TOTAL#1', true],
    ]);
    expect(refused).toMatchObject({
      operation: 'UpdateItem',
      status: 400,
      error: 'ConditionalCheckFailedException',
      items: [{ table, pk: 'RATE#1', access: 'write' }],
    });
  });
});
