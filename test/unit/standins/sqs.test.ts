import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSqsStandIn, type SqsStandIn } from '../../../local/standins/sqs.js';

// The SQS stand-in through the AWS SDK's own client (JSON protocol, signed, MD5s checked).
const credentials = { accessKeyId: 'LOCASQSTESTKEY', secretAccessKey: 'sqs-test-secret' };
let dataDir: string;
let clock: number;
let standIn: SqsStandIn;
let sqs: SQSClient;

async function start(): Promise<void> {
  standIn = await startSqsStandIn({ dataDir, credentials, now: () => clock, queues: ['standing'] });
  sqs = new SQSClient({ endpoint: standIn.url, region: 'us-east-1', credentials, maxAttempts: 1 });
}

async function stop(): Promise<void> {
  sqs.destroy();
  await standIn.close();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sqs-'));
  clock = Date.UTC(2026, 0, 1);
  await start();
});

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const counts = async (QueueUrl: string) =>
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }))).Attributes!;

test('messages are received, hidden while being handled, delivered again after the timeout, and deleted', async () => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'redrive-me' }));
  expect((await sqs.send(new GetQueueUrlCommand({ QueueName: 'redrive-me' }))).QueueUrl).toBe(QueueUrl);
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"batch":1}' }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"batch":2}' }));
  expect(await counts(QueueUrl!)).toMatchObject({
    ApproximateNumberOfMessages: '2',
    ApproximateNumberOfMessagesNotVisible: '0',
    QueueArn: 'arn:aws:sqs:us-east-1:000000000000:redrive-me',
  });

  const first = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }),
  );
  expect(first.Messages?.map((m) => m.Body)).toEqual(['{"batch":1}', '{"batch":2}']);
  expect(first.Messages?.[0]?.Attributes?.ApproximateReceiveCount).toBe('1');
  expect(await counts(QueueUrl!)).toMatchObject({
    ApproximateNumberOfMessages: '0',
    ApproximateNumberOfMessagesNotVisible: '2',
  });
  expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();

  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first.Messages![0]!.ReceiptHandle }));
  clock += 31_000;
  const again = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }),
  );
  expect(again.Messages?.map((m) => [m.Body, m.Attributes?.ApproximateReceiveCount])).toEqual([['{"batch":2}', '2']]);
  // The first receipt handle is outdated now: it deletes nothing.
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first.Messages![1]!.ReceiptHandle }));
  expect((await counts(QueueUrl!)).ApproximateNumberOfMessagesNotVisible).toBe('1');
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: again.Messages![0]!.ReceiptHandle }));
  clock += 31_000;
  expect(await counts(QueueUrl!)).toMatchObject({
    ApproximateNumberOfMessages: '0',
    ApproximateNumberOfMessagesNotVisible: '0',
  });
});

test('ChangeMessageVisibility hides a message received for as long as asked; an outdated or idle one is refused', async () => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'back-off' }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'retry me' }));
  const receive = () =>
    sqs.send(new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ['ApproximateReceiveCount'] }));
  const first = (await receive()).Messages![0]!;
  // Visible again at once (a backoff of 0), then hidden for 120 s (a longer one than the queue's 30).
  await sqs.send(
    new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 0 }),
  );
  const second = (await receive()).Messages![0]!;
  expect(second.Attributes).toEqual({ ApproximateReceiveCount: '2' });
  await expect(
    sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 5 }),
    ),
  ).rejects.toMatchObject({ name: 'MessageNotInflight' });
  await sqs.send(
    new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 120 }),
  );
  clock += 119_000;
  expect((await receive()).Messages).toBeUndefined();
  clock += 1_000;
  const third = (await receive()).Messages![0]!;
  expect(third.Attributes).toEqual({ ApproximateReceiveCount: '3' });
  clock += 30_000;
  await expect(
    sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: third.ReceiptHandle, VisibilityTimeout: 5 }),
    ),
  ).rejects.toMatchObject({ name: 'MessageNotInflight' });
  await expect(
    sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: 'nonsense', VisibilityTimeout: 5 })),
  ).rejects.toMatchObject({ name: 'ReceiptHandleIsInvalid' });
});

test('messages and queues survive a restart; queues named at start exist', async () => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'standing' }));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'kept' }));
  await stop();
  await start();
  const { QueueUrl: after } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'standing' }));
  const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: after }));
  expect(received.Messages?.map((m) => m.Body)).toEqual(['kept']);
});

test('bad input gets SQS errors; an unsigned or wrongly signed call is refused', async () => {
  await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'missing' }))).rejects.toMatchObject({
    name: 'QueueDoesNotExist',
  });
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'standing' }));
  await expect(sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 11 }))).rejects.toMatchObject({
    name: 'InvalidParameterValue',
    message: expect.stringContaining('MaxNumberOfMessages'),
  });
  await expect(
    sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'x'.repeat(256 * 1024 + 1) })),
  ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
  await expect(sqs.send(new CreateQueueCommand({ QueueName: 'bad name!' }))).rejects.toMatchObject({
    name: 'InvalidParameterValue',
  });
  const stranger = new SQSClient({
    endpoint: standIn.url,
    region: 'us-east-1',
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: 'not-the-secret' },
    maxAttempts: 1,
  });
  await expect(stranger.send(new GetQueueUrlCommand({ QueueName: 'standing' }))).rejects.toMatchObject({
    name: 'InvalidSignatureException',
  });
  stranger.destroy();
});
