import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';

// The AWS SDK's own client parses the answers: the shapes are the ones it expects from AWS.
const TABLE = 'tx-usage';
let dataDir: string;
let db: LocalDynamoDb;
let client: DynamoDBClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dynalite-tx-'));
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'tx' });
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const key = (sk: string) => ({ pk: { S: 'tx' }, sk: { S: sk } });
const putNew = (sk: string, extra: Record<string, { S: string }> = {}): TransactWriteItem => ({
  Put: { TableName: TABLE, Item: { ...key(sk), ...extra }, ConditionExpression: 'attribute_not_exists(pk)' },
});
const addTo = (sk: string, n: number): TransactWriteItem => ({
  Update: {
    TableName: TABLE,
    Key: key(sk),
    UpdateExpression: 'ADD n :n',
    ExpressionAttributeValues: { ':n': { N: String(n) } },
  },
});
const transact = (items: TransactWriteItem[]) => client.send(new TransactWriteItemsCommand({ TransactItems: items }));
const read = async (sk: string) => (await client.send(new GetItemCommand({ TableName: TABLE, Key: key(sk) }))).Item;
const counter = async (sk: string) => Number((await read(sk))?.['n']?.N ?? 0);

async function cancellation(items: TransactWriteItem[]): Promise<TransactionCanceledException> {
  const error = await transact(items).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransactionCanceledException);
  return error as TransactionCanceledException;
}

test('applies every action when every condition holds', async () => {
  await transact([putNew('ok-1'), addTo('ok-counter', 2)]);
  expect(await read('ok-1')).toBeDefined();
  expect(await counter('ok-counter')).toBe(2);
});

test('a failed condition cancels the transaction and undoes the actions applied before it', async () => {
  await transact([putNew('replay-1')]);
  const error = await cancellation([addTo('replay-counter', 5), putNew('replay-1'), putNew('replay-2')]);
  expect(error.message).toBe(
    'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, None]',
  );
  expect(error.CancellationReasons).toEqual([
    { Code: 'None' },
    { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
    { Code: 'None' },
  ]);
  expect(await counter('replay-counter')).toBe(0);
  expect(await read('replay-2')).toBeUndefined();
});

test('every failed condition is reported, with the old item when asked', async () => {
  await transact([putNew('old-1', { note: { S: 'first' } }), putNew('old-2')]);
  const error = await cancellation([
    { Put: { ...putNew('old-1').Put!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
    putNew('old-2'),
  ]);
  expect(error.CancellationReasons?.map((r) => r.Code)).toEqual(['ConditionalCheckFailed', 'ConditionalCheckFailed']);
  expect(error.CancellationReasons?.[0]?.Item).toEqual({ ...key('old-1'), note: { S: 'first' } });
  expect(error.CancellationReasons?.[1]?.Item).toBeUndefined();
});

test('a rolled-back delete and overwrite restore the items as they were', async () => {
  await transact([putNew('restore-1', { v: { S: 'one' } }), putNew('restore-2', { v: { S: 'two' } })]);
  await cancellation([
    { Delete: { TableName: TABLE, Key: key('restore-1') } },
    { Put: { TableName: TABLE, Item: { ...key('restore-2'), v: { S: 'changed' } } } },
    putNew('restore-1-again', {}),
    { ConditionCheck: { TableName: TABLE, Key: key('missing'), ConditionExpression: 'attribute_exists(pk)' } },
  ]);
  expect((await read('restore-1'))?.['v']).toEqual({ S: 'one' });
  expect((await read('restore-2'))?.['v']).toEqual({ S: 'two' });
  expect(await read('restore-1-again')).toBeUndefined();
});

test('a passing condition check writes nothing', async () => {
  await transact([
    {
      ConditionCheck: { TableName: TABLE, Key: key('never-written'), ConditionExpression: 'attribute_not_exists(pk)' },
    },
    addTo('check-counter', 1),
  ]);
  expect(await read('never-written')).toBeUndefined();
  expect(await counter('check-counter')).toBe(1);
});

test.each([
  ['two actions on one item', [putNew('dup'), addTo('dup', 1)], /multiple operations on one item/],
  ['more than 100 actions', Array.from({ length: 101 }, (_, i) => addTo(`many-${i}`, 1)), /less than or equal to 100/],
  ['no actions', [], /transactItems/],
])('%s is a ValidationException and writes nothing', async (_name, items, message) => {
  await expect(transact(items)).rejects.toMatchObject({
    name: 'ValidationException',
    message: expect.stringMatching(message),
  });
  expect(await read('dup')).toBeUndefined();
  expect(await counter('many-0')).toBe(0);
});

test('a rollback never loses a concurrent write to the same item', async () => {
  await transact([putNew('race-guard')]);
  const plainAdds = Array.from({ length: 40 }, () =>
    client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: key('race-counter'),
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': { N: '1' } },
      }),
    ),
  );
  const cancelled = Array.from({ length: 40 }, () =>
    transact([addTo('race-counter', 1000), putNew('race-guard')]).catch((e: unknown) => e),
  );
  await Promise.all([...plainAdds, ...cancelled]);
  expect(await counter('race-counter')).toBe(40);
});

test('ordinary writes still work beside the layer', async () => {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('plain'), v: { S: 'x' } } }));
  expect((await read('plain'))?.['v']).toEqual({ S: 'x' });
});
