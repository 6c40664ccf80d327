import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoDb, DynamoDbError, TransactionCanceledError } from '../../../lambdas/store/dynamodb-client.js';
import {
  partitionLimitFromEnv,
  PARTITION_WCU_ENV,
  startLocalDynamoDb,
  type LocalDynamoDb,
} from '../../../local/dynamodb.js';

// The embedded DynamoDB's per-partition throughput (local/dynamodb-throughput.mjs), scaled down
// to 20 WCU/s and 10 RCU/s per partition key, on a clock that moves only when a test moves it.
// The AWS SDK's own client, retries off, parses every answer: the shapes are the ones it
// expects from AWS. Each test uses partition keys of its own, and a partition not used yet
// starts with a full second of capacity.
const WCU = 20;
const RCU = 10;
const HOT_KEY_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your ' +
  'table or index so please try again shortly. If exceptions persist, check if you have a hot key: ' +
  'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';

let dataDir: string;
let db: LocalDynamoDb;
let client: DynamoDBClient;
let usage: string;
let usageArn: string;
let identityArn: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dynalite-throughput-'));
  db = await startLocalDynamoDb({
    dataDir,
    tablePrefix: 'tp',
    partitionThroughput: { writeUnitsPerSecond: WCU, readUnitsPerSecond: RCU, manualClock: true },
  });
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  usage = db.tableNames.usage;
  usageArn = (await client.send(new DescribeTableCommand({ TableName: usage }))).Table!.TableArn!;
  identityArn = (await client.send(new DescribeTableCommand({ TableName: db.tableNames.identity }))).Table!.TableArn!;
}, 30_000);

afterAll(async () => {
  client.destroy();
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function advance(ms: number): Promise<void> {
  const answer = await fetch(`${db.endpoint}/__local/throughput/advance?ms=${ms}`, { method: 'POST' });
  expect(answer.status).toBe(200);
}

async function throughputState(endpoint = db.endpoint): Promise<Record<string, unknown>> {
  return (await (await fetch(`${endpoint}/__local/throughput`)).json()) as Record<string, unknown>;
}

const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });

/** An item of exactly `bytes` as DynamoDB sizes it (attribute names and string values, ASCII). */
function item(pk: string, sk: string, bytes = 100): Record<string, AttributeValue> {
  const payload = bytes - ('pk'.length + pk.length) - ('sk'.length + sk.length) - 'data'.length;
  if (payload < 0) throw new Error(`an item of ${bytes} bytes cannot hold its key`);
  return { ...key(pk, sk), data: { S: 'x'.repeat(payload) } };
}

const put = (pk: string, sk: string, bytes?: number) =>
  client.send(new PutItemCommand({ TableName: usage, Item: item(pk, sk, bytes) }));
const read = (pk: string, sk: string, consistent = false) =>
  client.send(new GetItemCommand({ TableName: usage, Key: key(pk, sk), ConsistentRead: consistent }));

/** A call as it goes over the wire (the embedded DynamoDB does not check signatures). */
const rawCall = (operation: string, input: unknown) =>
  fetch(db.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${operation}`,
      'x-amz-date': '20260101T000000Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: JSON.stringify(input),
  });

const outcome = <T>(call: Promise<T>): Promise<T | Error> => call.catch((e: unknown) => e as Error);

/** Runs `call` one at a time until it is throttled; how many calls got through before. */
async function admittedUntilThrottled(call: (i: number) => Promise<unknown>, max = 100): Promise<number> {
  for (let i = 0; i < max; i++) {
    const result = await outcome(call(i));
    if (result instanceof ProvisionedThroughputExceededException) return i;
    if (result instanceof Error) throw result;
  }
  throw new Error(`${max} calls and no throttling`);
}

describe('one partition key past its limit', () => {
  test('is throttled with the exception, message and reason AWS sends; other keys are not', async () => {
    expect(await admittedUntilThrottled((i) => put('burst', `item-${i}`))).toBe(WCU);

    const error = await outcome(put('burst', 'one-more'));
    expect(error).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(error).toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      message: HOT_KEY_MESSAGE,
      ThrottlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: usageArn }],
      $metadata: { httpStatusCode: 400 },
    });
    // Not written.
    expect((await read('burst', 'one-more')).Item).toBeUndefined();

    // Another partition key of the same table, and reads of the hot one, are unaffected.
    await put('burst-neighbour', 'a');
    expect((await read('burst', 'item-0')).Item).toBeDefined();
  });

  test('the answer is exactly the JSON-protocol error AWS sends', async () => {
    await admittedUntilThrottled((i) => put('raw', `item-${i}`));
    const answer = await rawCall('PutItem', { TableName: usage, Item: item('raw', 'late') });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(answer.headers.get('x-amzn-requestid')).toMatch(/^[0-9A-F]{52}$/);
    expect(await answer.json()).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: HOT_KEY_MESSAGE,
      ThrottlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: usageArn }],
    });
  });

  test('throttled partitions are named; rates can change from one moment on', async () => {
    expect(await admittedUntilThrottled((i) => put('storm', `a-${i}`))).toBe(WCU);
    const named = (await throughputState()).throttledPartitions as Record<string, number>;
    expect(named[`${usage} storm`]).toBe(1);
    expect(Object.keys(named).every((name) => name.startsWith(`${usage} `))).toBe(true);

    const setRates = (query: string) => fetch(`${db.endpoint}/__local/throughput/rates?${query}`, { method: 'POST' });
    try {
      // Double the rate: the drained partition keeps its (empty) balance and refills twice as fast.
      expect(await (await setRates(`writeUnitsPerSecond=${2 * WCU}`)).json()).toEqual({
        writeUnitsPerSecond: 2 * WCU,
        readUnitsPerSecond: RCU,
      });
      await advance(500);
      expect(await admittedUntilThrottled((i) => put('storm', `b-${i}`))).toBe(WCU);
      expect(await admittedUntilThrottled((i) => put('storm-calm', `c-${i}`))).toBe(2 * WCU);
      expect((await setRates('writeUnitsPerSecond=off')).status).toBe(200);
      for (let i = 0; i < 3 * WCU; i++) await put('storm', `d-${i}`);
      expect((await setRates('writeUnitsPerSecond=-1')).status).toBe(400);
    } finally {
      await setRates(`writeUnitsPerSecond=${WCU}&readUnitsPerSecond=${RCU}`);
    }
  });

  test('capacity refills with time, up to one second of it', async () => {
    expect(await admittedUntilThrottled((i) => put('refill', `a-${i}`))).toBe(WCU);
    await advance(250); // a quarter of a second: 5 WCU
    expect(await admittedUntilThrottled((i) => put('refill', `b-${i}`))).toBe(WCU / 4);
    await advance(60_000); // a minute idle still holds only one second's worth
    expect(await admittedUntilThrottled((i) => put('refill', `c-${i}`))).toBe(WCU);
  });

  test('a failed conditional write still consumes capacity', async () => {
    await put('conditional', 'only');
    const conditionalPut = () =>
      client.send(
        new PutItemCommand({
          TableName: usage,
          Item: item('conditional', 'only'),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    const refusedButCharged = () =>
      conditionalPut().catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
    expect(await admittedUntilThrottled(refusedButCharged)).toBe(WCU - 1);
  });
});

describe('capacity units', () => {
  test('a write costs 1 WCU per started KB: a 3.5 KB item costs 4', async () => {
    expect(await admittedUntilThrottled((i) => put('size-1024', `i${i}`, 1024))).toBe(WCU);
    expect(await admittedUntilThrottled((i) => put('size-1025', `i${i}`, 1025))).toBe(WCU / 2);
    expect(await admittedUntilThrottled((i) => put('size-3584', `i${i}`, 3584))).toBe(WCU / 4);
    const answer = await client.send(
      new PutItemCommand({ TableName: usage, Item: item('size-asked', 'a', 3584), ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(answer.ConsumedCapacity).toEqual({ TableName: usage, CapacityUnits: 4 });
  });

  test('a put that can only create its item costs its size, as any put of a new item', async () => {
    // The layer does not ask dynalite to measure such a put: its estimate is what it costs.
    const create = (pk: string, i: number, condition: string, names?: Record<string, string>) =>
      client.send(
        new PutItemCommand({
          TableName: usage,
          Item: item(pk, `i${i}`, 3584),
          ConditionExpression: condition,
          ...(names ? { ExpressionAttributeNames: names } : {}),
        }),
      );
    expect(await admittedUntilThrottled((i) => create('create-pk', i, 'attribute_not_exists(pk)'))).toBe(WCU / 4);
    expect(
      await admittedUntilThrottled((i) => create('create-sk', i, 'attribute_not_exists(#k)', { '#k': 'sk' })),
    ).toBe(WCU / 4);
    await advance(1000);
    const answer = await create('create-pk', 100, 'attribute_not_exists(pk)');
    expect(answer.ConsumedCapacity).toBeUndefined();
    const asked = await client.send(
      new PutItemCommand({
        TableName: usage,
        Item: item('create-pk', 'asked', 3584),
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(asked.ConsumedCapacity).toEqual({ TableName: usage, CapacityUnits: 4 });
  });

  test('an update pays for the larger of the old and new item; the caller sees no ConsumedCapacity it did not ask for', async () => {
    await put('update', 'big', 3584);
    await advance(1000);
    const touch = () =>
      client.send(
        new UpdateItemCommand({
          TableName: usage,
          Key: key('update', 'big'),
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': { N: '1' } },
        }),
      );
    const answer = await touch();
    expect(answer.ConsumedCapacity).toBeUndefined();
    expect(await admittedUntilThrottled(touch)).toBe(WCU / 4 - 1);
  });

  test('a read costs 1 RCU per started 4 KB, half when eventually consistent', async () => {
    expect(await admittedUntilThrottled(() => read('read-eventual', 'missing'))).toBe(2 * RCU);
    expect(await admittedUntilThrottled(() => read('read-strong', 'missing', true))).toBe(RCU);
    await put('read-big', 'nine-kb', 9 * 1024);
    expect(await admittedUntilThrottled(() => read('read-big', 'nine-kb', true))).toBe(Math.ceil(RCU / 3));
  });

  test('a Query pays for the total size it read in the partition', async () => {
    for (let i = 0; i < 5; i++) await put('query', `i${i}`, 3584); // 17.5 KB: 5 RCU strongly consistent
    const queryAll = () =>
      client.send(
        new QueryCommand({
          TableName: usage,
          KeyConditionExpression: '#p = :p AND begins_with(sk, :i)',
          ExpressionAttributeNames: { '#p': 'pk' },
          ExpressionAttributeValues: { ':p': { S: 'query' }, ':i': { S: 'i' } },
          ConsistentRead: true,
        }),
      );
    expect((await queryAll()).Items).toHaveLength(5);
    expect(await admittedUntilThrottled(queryAll)).toBe(RCU / 5 - 1);
  });

  test('a Query that finds nothing still costs the least a read costs', async () => {
    const queryNothing = () =>
      client.send(
        new QueryCommand({
          TableName: usage,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': { S: 'query-empty' } },
        }),
      );
    expect(await admittedUntilThrottled(queryNothing)).toBe(2 * RCU);
  });

  test('a Query on an index is throttled by the index key, with the index in the reason', async () => {
    const identity = db.tableNames.identity;
    const owned = (owner: string) => ({ ...key(`key#${owner}`, 'meta'), ownerPk: { S: owner }, ownerSk: { S: 'k' } });
    await client.send(new PutItemCommand({ TableName: identity, Item: owned('owner#hot') }));
    await client.send(new PutItemCommand({ TableName: identity, Item: owned('owner#cold') }));
    const byOwner = (owner: string) =>
      client.send(
        new QueryCommand({
          TableName: identity,
          IndexName: 'byOwner',
          KeyConditionExpression: 'ownerPk = :o',
          ExpressionAttributeValues: { ':o': { S: owner } },
        }),
      );
    expect(await admittedUntilThrottled(() => byOwner('owner#hot'))).toBe(2 * RCU);
    await expect(byOwner('owner#hot')).rejects.toMatchObject({
      ThrottlingReasons: [{ reason: 'IndexReadKeyRangeThroughputExceeded', resource: `${identityArn}/index/byOwner` }],
    });
    expect((await byOwner('owner#cold')).Items).toHaveLength(1);
  });

  test('a Scan is charged to the partitions of the items it read', async () => {
    const jobs = db.tableNames.jobs;
    for (let i = 0; i < 5; i++) {
      await client.send(new PutItemCommand({ TableName: jobs, Item: item('scanned', `i${i}`, 3584) }));
    }
    await client.send(new ScanCommand({ TableName: jobs, ConsistentRead: true })); // 5 RCU
    const readScanned = () =>
      client.send(new GetItemCommand({ TableName: jobs, Key: key('scanned', 'i0'), ConsistentRead: true }));
    expect(await admittedUntilThrottled(readScanned)).toBe(RCU - 5);
  });
});

describe('batches', () => {
  const putRequest = (pk: string, sk: string) => ({ PutRequest: { Item: item(pk, sk) } });

  test('BatchWriteItem returns the throttled items as UnprocessedItems and writes the rest', async () => {
    const requests = Array.from({ length: 25 }, (_, i) => putRequest('batch-hot', `i${i}`));
    const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [usage]: requests } }));
    expect(answer.UnprocessedItems).toEqual({ [usage]: requests.slice(WCU) });
    expect((await read('batch-hot', `i${WCU - 1}`)).Item).toBeDefined();
    expect((await read('batch-hot', `i${WCU}`)).Item).toBeUndefined();

    const mixed = [putRequest('batch-hot', 'late'), putRequest('batch-cold', 'a'), putRequest('batch-cold', 'b')];
    const partly = await client.send(new BatchWriteItemCommand({ RequestItems: { [usage]: mixed } }));
    expect(partly.UnprocessedItems).toEqual({ [usage]: [mixed[0]] });
    expect((await read('batch-cold', 'b')).Item).toBeDefined();
  });

  test('BatchWriteItem with every item throttled is a ProvisionedThroughputExceededException', async () => {
    await admittedUntilThrottled((i) => put('batch-all', `i${i}`));
    const all = [putRequest('batch-all', 'x'), putRequest('batch-all', 'y')];
    const error = await outcome(client.send(new BatchWriteItemCommand({ RequestItems: { [usage]: all } })));
    expect(error).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(error).toMatchObject({
      message: HOT_KEY_MESSAGE,
      ThrottlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: usageArn }],
    });
  });

  test('a batch DynamoDB refuses is refused whole, not cut down to what the partition admits', async () => {
    await admittedUntilThrottled((i) => put('batch-oversize', `i${i}`));
    const requests = Array.from({ length: 26 }, (_, i) =>
      putRequest(i < 25 ? 'batch-oversize' : 'batch-oversize-2', `n${i}`),
    );
    await expect(client.send(new BatchWriteItemCommand({ RequestItems: { [usage]: requests } }))).rejects.toMatchObject(
      {
        name: 'ValidationException',
      },
    );
    expect((await read('batch-oversize-2', 'n25')).Item).toBeUndefined();
  });

  test('BatchGetItem returns the throttled keys as UnprocessedKeys, request options kept', async () => {
    const keys = Array.from({ length: 25 }, (_, i) => key('batch-get', `i${i}`));
    const answer = await client.send(
      new BatchGetItemCommand({ RequestItems: { [usage]: { Keys: keys, ProjectionExpression: 'sk' } } }),
    );
    expect(answer.UnprocessedKeys).toEqual({
      [usage]: { Keys: keys.slice(2 * RCU), ProjectionExpression: 'sk' },
    });
    const error = await outcome(
      client.send(new BatchGetItemCommand({ RequestItems: { [usage]: { Keys: keys.slice(0, 2) } } })),
    );
    expect(error).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(error).toMatchObject({
      ThrottlingReasons: [{ reason: 'TableReadKeyRangeThroughputExceeded', resource: usageArn }],
    });
  });
});

test('calls the layer cannot place are left to dynalite to answer', async () => {
  await expect(client.send(new GetItemCommand({ TableName: 'tp-missing', Key: key('a', 'b') }))).rejects.toMatchObject({
    name: 'ResourceNotFoundException',
  });
  await expect(
    client.send(new PutItemCommand({ TableName: usage, Item: { sk: { S: 'no partition key' } } })),
  ).rejects.toMatchObject({ name: 'ValidationException' });
  // An operation named like a property every object has is no operation either.
  const answer = await rawCall('constructor', { TableName: usage });
  expect(answer.status).toBe(400);
  expect(await answer.json()).toEqual({ __type: 'com.amazon.coral.service#UnknownOperationException' });
});

describe('transactions', () => {
  const putNew = (pk: string, sk: string): TransactWriteItem => ({
    Put: { TableName: usage, Item: item(pk, sk), ConditionExpression: 'attribute_not_exists(pk)' },
  });
  const transact = (items: TransactWriteItem[]) => client.send(new TransactWriteItemsCommand({ TransactItems: items }));

  async function cancellation(items: TransactWriteItem[]): Promise<TransactionCanceledException> {
    const error = await outcome(transact(items));
    expect(error).toBeInstanceOf(TransactionCanceledException);
    return error as TransactionCanceledException;
  }

  test('a transactional write costs twice: the action past the partition limit cancels the whole', async () => {
    // Ten 2-WCU puts use the partition's 20 WCU; the eleventh finds none left.
    const error = await cancellation(Array.from({ length: 11 }, (_, i) => putNew('tx-double', `i${i}`)));
    expect(error.message).toBe(
      `Transaction cancelled, please refer cancellation reasons for specific reasons [${[...Array(10).fill('None'), 'ThrottlingError'].join(', ')}]`,
    );
    expect(error.CancellationReasons).toEqual([
      ...Array.from({ length: 10 }, () => ({ Code: 'None' })),
      { Code: 'ThrottlingError', Message: HOT_KEY_MESSAGE },
    ]);
    // Nothing written and nothing charged: the ten fit on their own.
    expect((await read('tx-double', 'i0')).Item).toBeUndefined();
    await transact(Array.from({ length: 10 }, (_, i) => putNew('tx-double', `i${i}`)));
    expect((await read('tx-double', 'i9')).Item).toBeDefined();
  });

  test('only the actions on the throttled partition carry ThrottlingError; the others are not applied', async () => {
    await admittedUntilThrottled((i) => put('tx-hot', `i${i}`));
    const error = await cancellation([putNew('tx-cold', 'a'), putNew('tx-hot', 'b')]);
    expect(error.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'ThrottlingError', Message: HOT_KEY_MESSAGE },
    ]);
    expect((await read('tx-cold', 'a')).Item).toBeUndefined();
  });
});

describe("the gateway's own DynamoDB client", () => {
  test('retries a throttled call as busy, and hands a throttled transaction its reasons', async () => {
    await admittedUntilThrottled((i) => put('gateway-client', `i${i}`));
    const gateway = createDynamoDb({
      endpoint: db.endpoint,
      region: 'us-east-1',
      credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
      maxAttempts: 3,
    });
    const throttledPuts = async () => ((await throughputState()).throttledCalls as Record<string, number>)['PutItem'];
    const before = await throttledPuts();
    const error = await outcome(gateway.putItem({ TableName: usage, Item: item('gateway-client', 'late') }));
    expect(error).toBeInstanceOf(DynamoDbError);
    expect(error).toMatchObject({ name: 'ProvisionedThroughputExceededException', status: 400 });
    expect((await throttledPuts()) - before).toBe(3);

    const cancelled = await outcome(
      gateway.transactWriteItems({
        TransactItems: [{ Put: { TableName: usage, Item: item('gateway-client', 'tx') } }],
      }),
    );
    expect(cancelled).toBeInstanceOf(TransactionCanceledError);
    expect((cancelled as TransactionCanceledError).reasons.map((r) => r.Code)).toEqual(['ThrottlingError']);
  });
});

describe('the token bucket', () => {
  // The documented model, as a reference: refills at the rate up to one second's worth, admits a
  // call while the balance is positive, and the call's cost may take it below zero.
  test('admits writes exactly as a bucket of one second refilled continuously would', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            // Whole units of refill (50 ms is 1 WCU), so the reference's arithmetic is exact.
            waitMs: fc.integer({ min: 0, max: 8 }).map((n) => n * 50),
            kb: fc.integer({ min: 1, max: 6 }),
          }),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        async (steps) => {
          const pk = `bucket-${run++}`;
          let balance = WCU;
          for (const [i, { waitMs, kb }] of steps.entries()) {
            await advance(waitMs);
            balance = Math.min(WCU, balance + (waitMs * WCU) / 1000);
            const result = await outcome(put(pk, `i${i}`, kb * 1024));
            if (balance > 0) {
              expect(result).not.toBeInstanceOf(Error);
              balance -= kb;
            } else {
              expect(result).toBeInstanceOf(ProvisionedThroughputExceededException);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('configuration', () => {
  test('limits come from the environment: a positive number, or off', () => {
    const env = (value: string) => ({ [PARTITION_WCU_ENV]: value });
    expect(partitionLimitFromEnv(PARTITION_WCU_ENV, {})).toBeUndefined();
    expect(partitionLimitFromEnv(PARTITION_WCU_ENV, env(''))).toBeUndefined();
    expect(partitionLimitFromEnv(PARTITION_WCU_ENV, env('20'))).toBe(20);
    expect(partitionLimitFromEnv(PARTITION_WCU_ENV, env(' 0.5 '))).toBe(0.5);
    expect(partitionLimitFromEnv(PARTITION_WCU_ENV, env('OFF'))).toBe('off');
    for (const bad of ['0', '-5', 'fast', 'Infinity']) {
      expect(() => partitionLimitFromEnv(PARTITION_WCU_ENV, env(bad))).toThrow(
        `GATEWAY_DYNAMODB_PARTITION_WCU must be a positive number of capacity units per second, or "off" (got "${bad}")`,
      );
    }
  });

  describe('other instances', () => {
    const dirs: string[] = [];
    const saved = { ...process.env };
    afterEach(() => {
      process.env = { ...saved };
    });
    afterAll(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });
    const fresh = () => {
      const dir = mkdtempSync(join(tmpdir(), 'dynalite-throughput-config-'));
      dirs.push(dir);
      return dir;
    };

    test("by default AWS's limits are on; the environment sets them, and refuses nonsense before starting", async () => {
      delete process.env['GATEWAY_DYNAMODB_PARTITION_WCU'];
      delete process.env['GATEWAY_DYNAMODB_PARTITION_RCU'];
      const defaults = await startLocalDynamoDb({ dataDir: fresh(), tablePrefix: 'cfg' });
      try {
        expect(await throughputState(defaults.endpoint)).toMatchObject({
          writeUnitsPerSecond: 1000,
          readUnitsPerSecond: 3000,
          burstSeconds: 1,
        });
      } finally {
        await defaults.stop();
      }

      process.env['GATEWAY_DYNAMODB_PARTITION_RCU'] = '0';
      await expect(startLocalDynamoDb({ dataDir: fresh(), tablePrefix: 'cfg' })).rejects.toThrow(
        /GATEWAY_DYNAMODB_PARTITION_RCU must be a positive number/,
      );
    });

    test('off lifts one kind of limit and keeps the other', async () => {
      process.env['GATEWAY_DYNAMODB_PARTITION_WCU'] = 'off';
      process.env['GATEWAY_DYNAMODB_PARTITION_RCU'] = '1';
      const other = await startLocalDynamoDb({
        dataDir: fresh(),
        tablePrefix: 'cfg',
        partitionThroughput: { manualClock: true },
      });
      const otherClient = new DynamoDBClient({
        endpoint: other.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        maxAttempts: 1,
      });
      try {
        expect(await throughputState(other.endpoint)).toMatchObject({
          writeUnitsPerSecond: 'off',
          readUnitsPerSecond: 1,
        });
        const table = other.tableNames.usage;
        for (let i = 0; i < 50; i++) {
          await otherClient.send(new PutItemCommand({ TableName: table, Item: item('unlimited', `i${i}`, 4000) }));
        }
        const get = () => otherClient.send(new GetItemCommand({ TableName: table, Key: key('unlimited', 'i0') }));
        await get();
        await get();
        await expect(get()).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
      } finally {
        otherClient.destroy();
        await other.stop();
      }
    });
  });
});
