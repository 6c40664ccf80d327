import {
  ConditionalCheckFailedException,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import { tableSchemas } from '../../../lambdas/store/table-schema.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

let dataDir: string;
let db: LocalDynamoDb | undefined;
let client: DynamoDBClient | undefined;

async function start(): Promise<DynamoDBClient> {
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'gateway' });
  client = new DynamoDBClient({ endpoint: db.endpoint, region: 'us-east-1', credentials });
  return client;
}

async function stop(): Promise<void> {
  client?.destroy();
  client = undefined;
  await db?.stop();
  db = undefined;
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'dynalite-'));
});

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('creates every table with pk/sk keys, declared GSIs and on-demand billing', async () => {
  const ddb = await start();
  expect(db?.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(db?.tableNames).toEqual({
    identity: 'gateway-identity',
    usage: 'gateway-usage',
    cache: 'gateway-cache',
    jobs: 'gateway-jobs',
  });
  expect((await ddb.send(new ListTablesCommand({}))).TableNames?.sort()).toEqual([
    'gateway-cache',
    'gateway-identity',
    'gateway-jobs',
    'gateway-usage',
  ]);

  for (const schema of tableSchemas) {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: `gateway-${schema.name}` }));
    expect(Table?.TableStatus).toBe('ACTIVE');
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    const indexes = (Table?.GlobalSecondaryIndexes ?? []).map((i) => ({
      name: i.IndexName,
      keys: i.KeySchema,
      projection: i.Projection?.ProjectionType,
    }));
    expect(indexes).toEqual(
      schema.indexes.map((i) => ({
        name: i.name,
        keys: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        projection: 'ALL',
      })),
    );
  }
});

test('the GSI answers queries and conditional writes fail with ConditionalCheckFailedException', async () => {
  const ddb = client as DynamoDBClient;
  const item = {
    pk: { S: 'key#1' },
    sk: { S: 'meta' },
    ownerPk: { S: 'owner#a' },
    ownerSk: { S: 'key#2026-01-01' },
    label: { S: 'first' },
  };
  await ddb.send(
    new PutItemCommand({ TableName: 'gateway-identity', Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );

  const err = await ddb
    .send(
      new PutItemCommand({
        TableName: 'gateway-identity',
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    )
    .then(
      () => undefined,
      (e: unknown) => e as Error,
    );
  expect(err).toBeInstanceOf(ConditionalCheckFailedException);
  expect(err?.name).toBe('ConditionalCheckFailedException');

  const byOwner = await ddb.send(
    new QueryCommand({
      TableName: 'gateway-identity',
      IndexName: 'byOwner',
      KeyConditionExpression: 'ownerPk = :o',
      ExpressionAttributeValues: { ':o': { S: 'owner#a' } },
    }),
  );
  expect(byOwner.Items?.map((i) => i.label?.S)).toEqual(['first']);
});

test('a second start over the same directory keeps tables and items', async () => {
  await stop();
  const ddb = await start();
  const { Item } = await ddb.send(
    new GetItemCommand({ TableName: 'gateway-identity', Key: { pk: { S: 'key#1' }, sk: { S: 'meta' } } }),
  );
  expect(Item?.label?.S).toBe('first');
  expect((await ddb.send(new ListTablesCommand({}))).TableNames).toHaveLength(4);
});

test('a directory already in use by a running instance is refused, not shared', async () => {
  await expect(startLocalDynamoDb({ dataDir, tablePrefix: 'gateway', startTimeoutMs: 5000 })).rejects.toThrow(
    /another local runtime/,
  );
  // The running instance is unaffected.
  const { Item } = await (client as DynamoDBClient).send(
    new GetItemCommand({ TableName: 'gateway-identity', Key: { pk: { S: 'key#1' }, sk: { S: 'meta' } } }),
  );
  expect(Item?.label?.S).toBe('first');
});

test('stop() ends the child process', async () => {
  const endpoint = db?.endpoint as string;
  await stop();
  await expect(fetch(endpoint, { method: 'POST' })).rejects.toThrow();
});
