import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsJsonClient } from '../../../local/aws-json-client.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import { startSqsStandIn, type SqsStandIn } from '../../../local/standins/sqs.js';
import {
  StreamMappingError,
  StreamPoller,
  type StreamEvent,
  type StreamHandler,
  type StreamMapping,
} from '../../../local/stream-poller.js';

// The event source mapping against the embedded DynamoDB's child process (its Streams API) and
// the SQS stand-in, driven round by round with pollOnce() on a clock the test moves.
const credentials = { accessKeyId: 'LOCAPOLLERTESTKEY', secretAccessKey: 'poller-test-secret' };
let dataDir: string;
let db: LocalDynamoDb;
let dynamodb: DynamoDBClient;
let sqsStandIn: SqsStandIn;
let sqs: SQSClient;
let clock = Date.UTC(2026, 0, 1);
let tables = 0;

async function startDb(): Promise<void> {
  db = await startLocalDynamoDb({ dataDir: join(dataDir, 'dynamodb'), tablePrefix: 'poller' });
  dynamodb = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

async function stopDb(): Promise<void> {
  dynamodb.destroy();
  await db.stop();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'stream-poller-'));
  await startDb();
  sqsStandIn = await startSqsStandIn({ dataDir: join(dataDir, 'sqs'), credentials, queues: ['failures'] });
  sqs = new SQSClient({ endpoint: sqsStandIn.url, region: 'us-east-1', credentials, maxAttempts: 1 });
});

afterAll(async () => {
  sqs.destroy();
  await sqsStandIn.close();
  await stopDb();
  rmSync(dataDir, { recursive: true, force: true });
});

async function streamedTable(): Promise<string> {
  const name = `polled-${++tables}`;
  await dynamodb.send(
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
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  return name;
}

/** Writes item `pk`/`n` with value n; one partition key's records all go to one shard. */
async function write(table: string, pk: string, n: number): Promise<void> {
  await dynamodb.send(
    new PutItemCommand({
      TableName: table,
      Item: { pk: { S: pk }, sk: { S: String(n).padStart(4, '0') }, n: { N: String(n) } },
    }),
  );
}

function poller(table: string, handler: StreamHandler, settings: Partial<StreamMapping> = {}, file = `${table}.json`) {
  const client = (targetPrefix: string, endpoint: string, service: string) =>
    awsJsonClient({ endpoint, region: 'us-east-1', service, targetPrefix, credentials: () => credentials });
  return new StreamPoller(
    { functionName: `fn-${table}`, tableName: table, handler, ...settings },
    {
      streams: client('DynamoDBStreams_20120810', db.streamsEndpoint, 'dynamodb'),
      sqs: client('AmazonSQS', sqsStandIn.url, 'sqs'),
      checkpointFile: join(dataDir, 'checkpoints', file),
      region: 'us-east-1',
      account: '000000000000',
      now: () => clock,
      warn: () => undefined,
    },
  );
}

/** Rounds until one invokes nothing; the clock moves past every retry pause in between. */
async function drain(target: StreamPoller): Promise<number> {
  let rounds = 0;
  for (; rounds < 200; rounds++) {
    const round = await target.pollOnce();
    clock += 60_000;
    if (round.invocations === 0 && !round.moreReady) {
      const again = await target.pollOnce();
      if (again.invocations === 0) return rounds;
    }
  }
  throw new Error('the poller kept invoking for 200 rounds');
}

const values = (event: StreamEvent) => event.Records.map((r) => Number(r.dynamodb!.NewImage!['n']!.N));

test('every record is delivered once, in order per key, in batches of the mapping, with the Lambda event shape', async () => {
  const table = await streamedTable();
  const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
  for (let n = 1; n <= 5; n++) for (const pk of keys) await write(table, pk, n);
  const events: StreamEvent[] = [];
  const target = poller(table, (event) => void events.push(event), { batchSize: 4 });
  await drain(target);
  const byKey = new Map<string, number[]>();
  for (const event of events) {
    expect(event.Records.length).toBeLessThanOrEqual(4);
    for (const record of event.Records) {
      expect(record.eventSourceARN).toMatch(new RegExp(`:table/${table}/stream/`));
      expect(record).toMatchObject({ eventName: 'INSERT', eventSource: 'aws:dynamodb', eventVersion: '1.1' });
      expect(record.dynamodb).toMatchObject({ StreamViewType: 'NEW_IMAGE', Keys: { pk: { S: expect.any(String) } } });
      const pk = record.dynamodb!.Keys!['pk']!.S!;
      byKey.set(pk, [...(byKey.get(pk) ?? []), Number(record.dynamodb!.NewImage!['n']!.N)]);
    }
  }
  expect(Object.fromEntries(byKey)).toEqual(Object.fromEntries(keys.map((pk) => [pk, [1, 2, 3, 4, 5]])));
});

test('after a restart of the database, delivery resumes at the last checkpoint: none lost, the unsaved batch again', async () => {
  const table = await streamedTable();
  for (let n = 1; n <= 10; n++) await write(table, 'one-key', n);
  const delivered: number[][] = [];
  const handler: StreamHandler = (event) => void delivered.push(values(event));
  const first = poller(table, handler, { batchSize: 3 });
  await first.pollOnce();
  const checkpoints = join(dataDir, 'checkpoints', `${table}.json`);
  copyFileSync(checkpoints, `${checkpoints}.saved`);
  await first.pollOnce();
  // The process died after the second batch ran but before its checkpoint was written.
  copyFileSync(`${checkpoints}.saved`, checkpoints);
  expect(delivered).toEqual([
    [1, 2, 3],
    [4, 5, 6],
  ]);

  await stopDb();
  await startDb();
  for (let n = 11; n <= 12; n++) await write(table, 'one-key', n);
  const after = poller(table, handler, { batchSize: 3 });
  await drain(after);
  expect(delivered.slice(2)).toEqual([
    [4, 5, 6],
    [7, 8, 9],
    [10, 11, 12],
  ]);
});

test('an answer naming failed records resumes at the lowest of them', async () => {
  const table = await streamedTable();
  for (let n = 1; n <= 6; n++) await write(table, 'partial', n);
  const delivered: number[][] = [];
  let failOnce = true;
  const target = poller(
    table,
    (event) => {
      delivered.push(values(event));
      if (!failOnce) return { batchItemFailures: [] };
      failOnce = false;
      const seq = (n: number) => event.Records.find((r) => values({ Records: [r] })[0] === n)!.dynamodb!.SequenceNumber;
      return { batchItemFailures: [{ itemIdentifier: seq(5) }, { itemIdentifier: seq(3) }] };
    },
    { batchSize: 10, reportBatchItemFailures: true },
  );
  await drain(target);
  expect(delivered).toEqual([
    [1, 2, 3, 4, 5, 6],
    [3, 4, 5, 6],
  ]);
});

test('a throwing function is bisected down to the poison record, which goes to the SQS destination after its retries', async () => {
  const table = await streamedTable();
  for (let n = 1; n <= 8; n++) await write(table, 'poison', n);
  const succeeded: number[][] = [];
  const attempts: number[][] = [];
  const target = poller(
    table,
    (event) => {
      attempts.push(values(event));
      if (values(event).includes(5)) throw new Error('cannot handle record 5');
      succeeded.push(values(event));
    },
    {
      batchSize: 8,
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: 2,
      onFailureQueueUrl: sqsStandIn.queueUrl('failures'),
    },
  );
  await drain(target);
  expect(succeeded.flat().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 6, 7, 8]);
  // The whole batch, its halves, its quarter, then record 5 alone: once and twice more.
  expect(attempts.filter((batch) => batch.includes(5))).toEqual([
    [1, 2, 3, 4, 5, 6, 7, 8],
    [5, 6, 7, 8],
    [5, 6],
    [5],
    [5],
    [5],
  ]);

  const received = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: sqsStandIn.queueUrl('failures'), MaxNumberOfMessages: 10 }),
  );
  expect(received.Messages).toHaveLength(1);
  const description = JSON.parse(received.Messages![0]!.Body!);
  expect(description).toMatchObject({
    requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3, functionArn: target.functionArn },
    responseContext: { functionError: 'Unhandled' },
    version: '1.0',
    DDBStreamBatchInfo: { batchSize: 1, streamArn: expect.stringContaining(`:table/${table}/stream/`) },
  });
  expect(description.DDBStreamBatchInfo.startSequenceNumber).toBe(description.DDBStreamBatchInfo.endSequenceNumber);
  // Redrive material: the sequence number names the record, readable from the stream for 24 hours.
  await sqs.send(
    new DeleteMessageCommand({
      QueueUrl: sqsStandIn.queueUrl('failures'),
      ReceiptHandle: received.Messages![0]!.ReceiptHandle,
    }),
  );
  clock += 60 * 60_000;
  expect(
    (await sqs.send(new ReceiveMessageCommand({ QueueUrl: sqsStandIn.queueUrl('failures') }))).Messages,
  ).toBeUndefined();
});

test('stop lets the batch in flight finish and be checkpointed, and starts no other', async () => {
  const table = await streamedTable();
  for (let n = 1; n <= 4; n++) await write(table, 'stopping', n);
  const delivered: number[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((done) => (release = done));
  const target = poller(
    table,
    async (event) => {
      delivered.push(values(event));
      await gate;
    },
    { batchSize: 2 },
  );
  const round = target.pollOnce();
  while (delivered.length === 0) await new Promise((done) => setImmediate(done));
  let stopped = false;
  const stopping = target.stop().then(() => (stopped = true));
  for (let i = 0; i < 20; i++) await new Promise((done) => setImmediate(done));
  expect(stopped).toBe(false);
  release();
  await stopping;
  expect((await round).checkpointed).toBe(2);
  expect((await target.pollOnce()).invocations).toBe(0);
  expect(delivered).toEqual([[1, 2]]);
  // The next start goes on after the checkpoint.
  const next = poller(table, (event) => void delivered.push(values(event)), { batchSize: 2 });
  await drain(next);
  expect(delivered).toEqual([
    [1, 2],
    [3, 4],
  ]);
});

test('a mapping set up wrongly is refused: bad settings, a table without a stream', async () => {
  expect(() => poller('any', () => undefined, { batchSize: 0 })).toThrow(StreamMappingError);
  expect(() => poller('any', () => undefined, { maximumRetryAttempts: -2 })).toThrow(/maximumRetryAttempts/);
  await expect(poller('no-such-table', () => undefined).pollOnce()).rejects.toThrow(StreamMappingError);
});
