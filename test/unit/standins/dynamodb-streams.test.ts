import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';

// The embedded DynamoDB's streams read through the AWS SDK's own DynamoDB Streams client: the
// answers have the shapes the SDK expects from AWS.
let dataDir: string;
let db: LocalDynamoDb;
let client: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let tableCount = 0;

async function start(): Promise<void> {
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'streams' });
  const config = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 };
  client = new DynamoDBClient({ ...config, endpoint: db.endpoint });
  streams = new DynamoDBStreamsClient({ ...config, endpoint: db.streamsEndpoint });
}

async function stop(): Promise<void> {
  client.destroy();
  streams.destroy();
  await db.stop();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dynalite-streams-'));
  await start();
});

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function streamedTable(viewType: 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES' = 'NEW_AND_OLD_IMAGES') {
  const name = `streamed-${++tableCount}`;
  const { TableDescription } = await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: viewType },
    }),
  );
  return { name, arn: TableDescription!.LatestStreamArn! };
}

async function shardIds(arn: string): Promise<string[]> {
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  return StreamDescription!.Shards!.map((shard) => shard.ShardId!);
}

/** Every record of every shard, in shard order, following NextShardIterator until the end. */
async function allRecords(arn: string, limit = 1000): Promise<Map<string, StreamRecord[]>> {
  const byShard = new Map<string, StreamRecord[]>();
  for (const shardId of await shardIds(arn)) {
    const records: StreamRecord[] = [];
    let { ShardIterator: iterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    for (;;) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
      records.push(...(page.Records ?? []));
      iterator = page.NextShardIterator;
      // An open shard answers an empty page at its end; a closed one ends with no next iterator.
      if (!iterator || (page.Records ?? []).length === 0) break;
    }
    byShard.set(shardId, records);
  }
  return byShard;
}

const flat = (byShard: Map<string, StreamRecord[]>) => [...byShard.values()].flat();
const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });
const seq = (record: StreamRecord) => BigInt(record.dynamodb!.SequenceNumber!);

test('CreateTable with a StreamSpecification gives the table a stream that DescribeTable and ListStreams show', async () => {
  const table = await streamedTable('NEW_IMAGE');
  expect(table.arn).toMatch(
    new RegExp(`^arn:aws:dynamodb:us-east-1:\\d{12}:table/${table.name}/stream/\\d{4}-\\d\\d-\\d\\dT[\\d:.]+$`),
  );
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table.name }));
  expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  expect(Table?.LatestStreamArn).toBe(table.arn);
  const listed = await streams.send(new ListStreamsCommand({ TableName: table.name }));
  expect(listed.Streams).toEqual([
    { StreamArn: table.arn, TableName: table.name, StreamLabel: Table?.LatestStreamLabel },
  ]);
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: table.arn }));
  expect(StreamDescription).toMatchObject({
    StreamStatus: 'ENABLED',
    StreamViewType: 'NEW_IMAGE',
    TableName: table.name,
  });
  expect(StreamDescription!.Shards!.length).toBeGreaterThan(1);
});

test('an INSERT, MODIFY and REMOVE carry the keys, images and growing sequence numbers of the view type', async () => {
  const table = await streamedTable();
  await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key('a', '1'), n: { N: '1' } } }));
  await client.send(
    new UpdateItemCommand({
      TableName: table.name,
      Key: key('a', '1'),
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
    }),
  );
  // Writing the same item again changes nothing, and DynamoDB records nothing for it.
  await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key('a', '1'), n: { N: '2' } } }));
  await client.send(new DeleteItemCommand({ TableName: table.name, Key: key('a', '1') }));
  const records = flat(await allRecords(table.arn));
  expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
  const [insert, modify, remove] = records;
  expect(insert).toMatchObject({
    eventSource: 'aws:dynamodb',
    eventVersion: '1.1',
    awsRegion: 'us-east-1',
    dynamodb: {
      Keys: key('a', '1'),
      NewImage: { ...key('a', '1'), n: { N: '1' } },
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  });
  expect(insert!.dynamodb!.OldImage).toBeUndefined();
  expect(insert!.eventID).toMatch(/^[0-9a-f]{32}$/);
  expect(insert!.dynamodb!.ApproximateCreationDateTime).toBeInstanceOf(Date);
  expect(insert!.dynamodb!.SizeBytes).toBeGreaterThan(0);
  expect(modify!.dynamodb).toMatchObject({
    OldImage: { ...key('a', '1'), n: { N: '1' } },
    NewImage: { ...key('a', '1'), n: { N: '2' } },
  });
  expect(remove!.dynamodb!.NewImage).toBeUndefined();
  expect(remove!.dynamodb!.OldImage).toEqual({ ...key('a', '1'), n: { N: '2' } });
  expect(seq(insert!) < seq(modify!) && seq(modify!) < seq(remove!)).toBe(true);
  expect(insert!.dynamodb!.SequenceNumber).toMatch(/^\d{21}$/);
});

test('a cancelled transaction records none of its writes; a committed one records each item once', async () => {
  const table = await streamedTable();
  await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key('t', 'taken'), v: { S: 'old' } } }));
  const put = (sk: string, condition?: string) => ({
    Put: {
      TableName: table.name,
      Item: { ...key('t', sk), v: { S: 'new' } },
      ...(condition ? { ConditionExpression: condition } : {}),
    },
  });
  await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key('t', 'checked') } }));
  // Applied one by one and undone: the first two actions ran before the third's condition failed.
  await expect(
    client.send(
      new TransactWriteItemsCommand({
        TransactItems: [put('fresh'), put('fresh-2'), put('taken', 'attribute_not_exists(pk)')],
      }),
    ),
  ).rejects.toThrow('Transaction cancelled');
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        put('committed'),
        {
          ConditionCheck: {
            TableName: table.name,
            Key: key('t', 'checked'),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          Update: {
            TableName: table.name,
            Key: key('t', 'taken'),
            UpdateExpression: 'SET w = :w',
            ExpressionAttributeValues: { ':w': { S: 'x' } },
          },
        },
      ],
    }),
  );
  const records = flat(await allRecords(table.arn));
  const described = records.map((r) => `${r.eventName} ${r.dynamodb!.Keys!['sk']!.S}`).sort();
  expect(described).toEqual(['INSERT checked', 'INSERT committed', 'INSERT taken', 'MODIFY taken']);
});

type Operation =
  | { kind: 'put'; sk: string; value: number }
  | { kind: 'update'; sk: string; value: number }
  | { kind: 'delete'; sk: string }
  | { kind: 'batch'; sks: string[]; value: number }
  | { kind: 'transaction'; sks: string[]; value: number; cancel: boolean };

const sks = ['a', 'b', 'c', 'd'];
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), sk: fc.constantFrom(...sks), value: fc.nat(50) }),
  fc.record({ kind: fc.constant('update' as const), sk: fc.constantFrom(...sks), value: fc.nat(50) }),
  fc.record({ kind: fc.constant('delete' as const), sk: fc.constantFrom(...sks) }),
  fc.record({
    kind: fc.constant('batch' as const),
    sks: fc.uniqueArray(fc.constantFrom(...sks), { minLength: 1, maxLength: 3 }),
    value: fc.nat(50),
  }),
  fc.record({
    kind: fc.constant('transaction' as const),
    sks: fc.uniqueArray(fc.constantFrom(...sks), { minLength: 1, maxLength: 3 }),
    value: fc.nat(50),
    cancel: fc.boolean(),
  }),
);

test('every committed change appears exactly once, in order per item, whatever the mix of writes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
      const table = await streamedTable('NEW_IMAGE');
      // The model: each item's value after each committed change.
      const items = new Map<string, number | undefined>();
      const expected = new Map<string, string[]>();
      const change = (sk: string, value: number | undefined) => {
        const before = items.get(sk);
        if (before === value) return;
        const event = before === undefined ? 'INSERT' : value === undefined ? 'REMOVE' : 'MODIFY';
        expected.set(sk, [...(expected.get(sk) ?? []), `${event}:${value ?? '-'}`]);
        items.set(sk, value);
      };
      // One partition key per item: the records spread over the shards.
      const item = (sk: string, value: number): Record<string, AttributeValue> => ({
        ...key(`p-${sk}`, sk),
        v: { N: String(value) },
      });
      for (const op of operations) {
        if (op.kind === 'put') {
          await client.send(new PutItemCommand({ TableName: table.name, Item: item(op.sk, op.value) }));
          change(op.sk, op.value);
        } else if (op.kind === 'update') {
          await client.send(
            new UpdateItemCommand({
              TableName: table.name,
              Key: key(`p-${op.sk}`, op.sk),
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': { N: String(op.value) } },
            }),
          );
          change(op.sk, op.value);
        } else if (op.kind === 'delete') {
          await client.send(new DeleteItemCommand({ TableName: table.name, Key: key(`p-${op.sk}`, op.sk) }));
          change(op.sk, undefined);
        } else if (op.kind === 'batch') {
          await client.send(
            new BatchWriteItemCommand({
              RequestItems: { [table.name]: op.sks.map((sk) => ({ PutRequest: { Item: item(sk, op.value) } })) },
            }),
          );
          for (const sk of op.sks) change(sk, op.value);
        } else {
          const actions = op.sks.map((sk) => ({ Put: { TableName: table.name, Item: item(sk, op.value) } }));
          const poison = {
            ConditionCheck: {
              TableName: table.name,
              Key: key('p', 'never'),
              ConditionExpression: 'attribute_exists(pk)',
            },
          };
          const sent = client.send(
            new TransactWriteItemsCommand({ TransactItems: op.cancel ? [...actions, poison] : actions }),
          );
          if (op.cancel) await expect(sent).rejects.toThrow('Transaction cancelled');
          else {
            await sent;
            for (const sk of op.sks) change(sk, op.value);
          }
        }
      }
      const seen = new Map<string, string[]>();
      for (const records of (await allRecords(table.arn, 3)).values()) {
        for (const record of records) {
          const sk = record.dynamodb!.Keys!['sk']!.S!;
          const value = record.dynamodb!.NewImage?.['v']?.N ?? '-';
          seen.set(sk, [...(seen.get(sk) ?? []), `${record.eventName}:${value}`]);
        }
      }
      expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(expected));
    }),
    { numRuns: 8 },
  );
});

test('GetRecords pages with Limit and NextShardIterator; iterators start where their type says', async () => {
  const table = await streamedTable();
  for (let i = 0; i < 7; i++) {
    await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key('page', String(i)) } }));
  }
  const [shardId] = [...(await allRecords(table.arn)).entries()].find(([, records]) => records.length === 7)!;
  const iterator = async (
    type: 'TRIM_HORIZON' | 'LATEST' | 'AT_SEQUENCE_NUMBER' | 'AFTER_SEQUENCE_NUMBER',
    n?: string,
  ) =>
    (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: table.arn,
          ShardId: shardId,
          ShardIteratorType: type,
          SequenceNumber: n,
        }),
      )
    ).ShardIterator;
  const pages: string[][] = [];
  let next = await iterator('TRIM_HORIZON');
  for (let i = 0; i < 5; i++) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: next, Limit: 3 }));
    pages.push((page.Records ?? []).map((r) => r.dynamodb!.Keys!['sk']!.S!));
    next = page.NextShardIterator;
    expect(next).toBeDefined();
  }
  expect(pages).toEqual([['0', '1', '2'], ['3', '4', '5'], ['6'], [], []]);

  const all = (await streams.send(new GetRecordsCommand({ ShardIterator: await iterator('TRIM_HORIZON') }))).Records!;
  const third = all[2]!.dynamodb!.SequenceNumber!;
  const at = await streams.send(new GetRecordsCommand({ ShardIterator: await iterator('AT_SEQUENCE_NUMBER', third) }));
  expect(at.Records!.map((r) => r.dynamodb!.Keys!['sk']!.S)).toEqual(['2', '3', '4', '5', '6']);
  const after = await streams.send(
    new GetRecordsCommand({ ShardIterator: await iterator('AFTER_SEQUENCE_NUMBER', third) }),
  );
  expect(after.Records!.map((r) => r.dynamodb!.Keys!['sk']!.S)).toEqual(['3', '4', '5', '6']);

  const latest = await iterator('LATEST');
  expect((await streams.send(new GetRecordsCommand({ ShardIterator: latest }))).Records).toEqual([]);
  await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key('page', '7') } }));
  const fresh = await streams.send(new GetRecordsCommand({ ShardIterator: latest }));
  expect(fresh.Records!.map((r) => r.dynamodb!.Keys!['sk']!.S)).toEqual(['7']);
});

test('bad Streams API input gets AWS errors naming the field', async () => {
  const table = await streamedTable();
  const [shardId] = await shardIds(table.arn);
  const horizon = (
    await streams.send(
      new GetShardIteratorCommand({ StreamArn: table.arn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    )
  ).ShardIterator;
  await expect(streams.send(new GetRecordsCommand({ ShardIterator: horizon, Limit: 1001 }))).rejects.toMatchObject({
    name: 'ValidationException',
    message: expect.stringContaining("'limit'"),
  });
  await expect(streams.send(new GetRecordsCommand({ ShardIterator: 'garbage' }))).rejects.toMatchObject({
    name: 'ValidationException',
    message: 'Invalid ShardIterator',
  });
  await expect(
    streams.send(new DescribeStreamCommand({ StreamArn: `${table.arn.slice(0, -3)}999` })),
  ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  await expect(
    streams.send(
      new GetShardIteratorCommand({ StreamArn: table.arn, ShardId: shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER' }),
    ),
  ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('SequenceNumber') });
  await expect(
    streams.send(
      new GetShardIteratorCommand({
        StreamArn: table.arn,
        ShardId: shardId,
        ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
        SequenceNumber: '999999999999999999999',
      }),
    ),
  ).rejects.toMatchObject({ name: 'ValidationException' });
});

test('UpdateTable enables a stream on a table made without one, and disables it', async () => {
  const name = `plain-${++tableCount}`;
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
  await client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'before' } } }));
  const { TableDescription } = await client.send(
    new UpdateTableCommand({
      TableName: name,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  const arn = TableDescription!.LatestStreamArn!;
  await expect(
    client.send(
      new UpdateTableCommand({
        TableName: name,
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    ),
  ).rejects.toMatchObject({ name: 'ValidationException' });
  await client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'after' } } }));
  expect(flat(await allRecords(arn)).map((r) => r.dynamodb!.Keys!['pk']!.S)).toEqual(['after']);

  await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: false } }));
  await client.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'disabled' } } }));
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
  expect(StreamDescription?.StreamStatus).toBe('DISABLED');
  expect(StreamDescription?.Shards?.every((s) => s.SequenceNumberRange?.EndingSequenceNumber)).toBe(true);
  expect(flat(await allRecords(arn)).map((r) => r.dynamodb!.Keys!['pk']!.S)).toEqual(['after']);
  expect((await client.send(new DescribeTableCommand({ TableName: name }))).Table?.StreamSpecification).toBeUndefined();
});

test('records survive a restart of the database, none lost or repeated, and numbering goes on', async () => {
  const table = await streamedTable();
  for (let i = 0; i < 5; i++) {
    await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key(`r${i}`, 'x') } }));
  }
  const before = flat(await allRecords(table.arn));
  await stop();
  await start();
  for (let i = 5; i < 8; i++) {
    await client.send(new PutItemCommand({ TableName: table.name, Item: { ...key(`r${i}`, 'x') } }));
  }
  const after = flat(await allRecords(table.arn));
  const ids = (records: StreamRecord[]) => records.map((r) => r.eventID).sort();
  expect(ids(after.filter((r) => before.some((b) => b.eventID === r.eventID)))).toEqual(ids(before));
  const fresh = after.filter((r) => !before.some((b) => b.eventID === r.eventID));
  expect(fresh.map((r) => r.dynamodb!.Keys!['pk']!.S).sort()).toEqual(['r5', 'r6', 'r7']);
  const highestBefore = before.map(seq).reduce((a, b) => (a > b ? a : b));
  expect(fresh.every((r) => seq(r) > highestBefore)).toBe(true);
  expect(new Set(after.map((r) => r.dynamodb!.SequenceNumber)).size).toBe(after.length);
});
