import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsJsonClient, type AwsJsonCall } from '../../../local/aws-json-client.js';
import { QueueMappingError, QueuePoller, type QueueHandler } from '../../../local/queue-poller.js';
import { LOCAL_SQS_ACCOUNT, startSqsStandIn, type SqsStandIn } from '../../../local/standins/sqs.js';

// The SQS event source mapping against the SQS stand-in, driven round by round with pollOnce()
// on a clock the test moves (visibility timeouts), polls never waiting.
const credentials = { accessKeyId: 'LOCAQUEUEPOLLERKEY', secretAccessKey: 'queue-poller-secret' };
let dataDir: string;
let standIn: SqsStandIn;
let clock = Date.UTC(2026, 0, 1);
let queues = 0;
const sqs = () =>
  awsJsonClient({
    endpoint: standIn.url,
    region: 'us-east-1',
    service: 'sqs',
    targetPrefix: 'AmazonSQS',
    credentials: () => credentials,
  });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'queue-poller-'));
  standIn = await startSqsStandIn({ dataDir, credentials, now: () => clock });
});

afterAll(async () => {
  await standIn.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function queueWith(bodies: readonly string[]): Promise<string> {
  const { QueueUrl } = await sqs()<{ QueueUrl: string }>('CreateQueue', { QueueName: `polled-${++queues}` });
  for (const body of bodies) await sqs()('SendMessage', { QueueUrl, MessageBody: body });
  return QueueUrl;
}

const counts = async (QueueUrl: string) => {
  const { Attributes } = await sqs()<{ Attributes: Record<string, string> }>('GetQueueAttributes', {
    QueueUrl,
    AttributeNames: ['All'],
  });
  return {
    visible: Number(Attributes['ApproximateNumberOfMessages']),
    hidden: Number(Attributes['ApproximateNumberOfMessagesNotVisible']),
  };
};

function poller(queueUrl: string, handler: QueueHandler, batchSize = 10, warnings: string[] = []) {
  return new QueuePoller(
    { functionName: 'redrive', queueUrl, handler, batchSize, reportBatchItemFailures: true },
    { sqs: sqs(), region: 'us-east-1', account: LOCAL_SQS_ACCOUNT, warn: (message) => warnings.push(message) },
    0,
  );
}

test('the function gets an SQSEvent of up to batchSize messages, and handled messages are deleted', async () => {
  const queueUrl = await queueWith(['a', 'b', 'c']);
  const events: SQSEvent[] = [];
  const handle = poller(queueUrl, (event) => void events.push(event), 2);
  expect(await handle.pollOnce()).toEqual({ received: 2, deleted: 2, moreReady: true });
  expect(await handle.pollOnce()).toEqual({ received: 1, deleted: 1, moreReady: false });
  expect(await handle.pollOnce()).toEqual({ received: 0, deleted: 0, moreReady: false });
  expect(events.flatMap((event) => event.Records.map((record) => record.body))).toEqual(['a', 'b', 'c']);
  expect(events[0]!.Records[0]).toMatchObject({
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:${LOCAL_SQS_ACCOUNT}:${queueUrl.split('/').pop()}`,
    awsRegion: 'us-east-1',
    attributes: { ApproximateReceiveCount: '1' },
  });
  expect(await counts(queueUrl)).toEqual({ visible: 0, hidden: 0 });
});

test('reported batch item failures stay in the queue and come back after their visibility timeout', async () => {
  const queueUrl = await queueWith(['keep', 'fail']);
  const seen: [string, string][] = [];
  const handle = poller(queueUrl, (event): SQSBatchResponse => {
    for (const record of event.Records) seen.push([record.body, record.attributes.ApproximateReceiveCount]);
    return {
      batchItemFailures: event.Records.filter((record) => record.body === 'fail').map((record) => ({
        itemIdentifier: record.messageId,
      })),
    };
  });
  expect(await handle.pollOnce()).toMatchObject({ received: 2, deleted: 1 });
  expect(await counts(queueUrl)).toEqual({ visible: 0, hidden: 1 });
  clock += 31_000;
  expect(await handle.pollOnce()).toMatchObject({ received: 1, deleted: 0 });
  expect(seen).toEqual([
    ['keep', '1'],
    ['fail', '1'],
    ['fail', '2'],
  ]);
});

test('a thrown error or an unreadable answer leaves the whole batch', async () => {
  const queueUrl = await queueWith(['x', 'y']);
  const warnings: string[] = [];
  const throwing = poller(
    queueUrl,
    () => {
      throw new Error('boom');
    },
    10,
    warnings,
  );
  expect(await throwing.pollOnce()).toMatchObject({ received: 2, deleted: 0 });
  clock += 31_000;
  const strange = poller(
    queueUrl,
    () => ({ batchItemFailures: [{ itemIdentifier: 'not-in-the-batch' }] }),
    10,
    warnings,
  );
  expect(await strange.pollOnce()).toMatchObject({ received: 2, deleted: 0 });
  expect(await counts(queueUrl)).toEqual({ visible: 0, hidden: 2 });
  expect(warnings).toEqual([
    expect.stringContaining('the function failed'),
    expect.stringContaining('batch item failures Lambda cannot read'),
  ]);
  clock += 31_000;
  expect(await poller(queueUrl, () => ({ batchItemFailures: [] })).pollOnce()).toMatchObject({ deleted: 2 });
});

test('stop lets the batch in flight finish and be deleted, and starts no other', async () => {
  const queueUrl = await queueWith(['slow', 'later']);
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((done) => (enter = done));
  const released = new Promise<void>((done) => (release = done));
  const handle = poller(
    queueUrl,
    async () => {
      enter();
      await released;
    },
    1,
  );
  handle.start();
  await entered;
  const stopping = handle.stop();
  release();
  await stopping;
  expect(await counts(queueUrl)).toEqual({ visible: 1, hidden: 0 });
});

test('stop gives up a long poll still waiting on an empty queue, quietly, and loses nothing sent later', async () => {
  const queueUrl = await queueWith([]);
  const warnings: string[] = [];
  const handled: string[] = [];
  const receives: AbortSignal[] = [];
  const client = sqs();
  // Every receive's signal, to see the stop end the one waiting rather than wait it out.
  const watched: AwsJsonCall = (operation, input, signal) => {
    if (operation === 'ReceiveMessage' && signal) receives.push(signal);
    return client(operation, input, signal);
  };
  const handle = new QueuePoller(
    {
      functionName: 'redrive',
      queueUrl,
      handler: async (event) => void handled.push(...(event as SQSEvent).Records.map((r) => r.body)),
    },
    { sqs: watched, region: 'us-east-1', account: LOCAL_SQS_ACCOUNT, warn: (message) => warnings.push(message) },
    20,
  );
  handle.start();
  await handle.stop();
  expect(receives).toHaveLength(1);
  expect(receives[0]!.aborted).toBe(true);
  await sqs()('SendMessage', { QueueUrl: queueUrl, MessageBody: 'after the stop' });
  expect(handled).toEqual([]);
  expect(warnings).toEqual([]);
  expect(await counts(queueUrl)).toEqual({ visible: 1, hidden: 0 });
});

test('a batch size Lambda would refuse is a mapping error', () => {
  expect(() => poller('http://127.0.0.1:1/000000000000/q', () => undefined, 11)).toThrow(QueueMappingError);
});
