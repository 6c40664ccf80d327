import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createDynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import { MalformedUsageEntryError, readUsageEntry } from '../../../lambdas/usage/usage-entry-reader.js';
import {
  entriesOfRetryMessage,
  MAX_RETRY_MESSAGE_BYTES,
  retryMessageBodies,
} from '../../../lambdas/usage/usage-retry-messages.js';
import { redriveUsageMessages } from '../../../lambdas/usage/usage-redrive.js';
import { RetryQueueError, sqsRetrySender } from '../../../lambdas/usage/usage-retry-queue.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awsJsonClient } from '../../../local/aws-json-client.js';
import { startSqsStandIn } from '../../../local/standins/sqs.js';
import { recordLedgerEntries } from '../../../lambdas/store/usage-ledger-puts.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { ledgerEntriesOf, usageEntry, type UsageTable } from '../../support/usage-pipeline-harness.js';

const local = useLocalDynamoDb('retry-path');
let usage: UsageTable;
beforeAll(() => {
  usage = {
    db: createDynamoDb({
      endpoint: local().endpoint,
      region: 'us-east-1',
      credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
    }),
    table: local().tableNames.usage,
  };
});

describe('retry messages', () => {
  test('entries go out and come back unchanged, in messages that fit SQS', () => {
    const entries = Array.from({ length: 1_000 }, (_, i) =>
      usageEntry({
        requestId: `r-${i}`,
        sessionId: 'ses_1',
        round: 2,
        agent: 'gpt',
        purpose: 'answer',
        // The parts of the tokens travel too (every other entry has none).
        ...(i % 2 === 0 ? { cachedTokens: 5, cacheWriteTokens: 3, cacheWrite1hTokens: 1, reasoningTokens: 2 } : {}),
      }),
    );
    const bodies = retryMessageBodies(entries);
    expect(bodies.length).toBeGreaterThan(1);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_RETRY_MESSAGE_BYTES);
    expect(bodies.flatMap(entriesOfRetryMessage)).toEqual(entries);
  });

  test.each([
    ['text that is not JSON', 'not json', 'a retry message is not JSON'],
    ['another version', '{"v":2,"entries":[]}', 'a retry message must be {"v":1,"entries":[...]}'],
    ['an entry that is not an object', '{"v":1,"entries":[3]}', 'entries[0]: must be an object'],
    [
      'an entry with a bad instant',
      JSON.stringify({ v: 1, entries: [{ ...usageEntry(), at: 'yesterday' }] }),
      'entries[0].at: must be an ISO 8601 date-time',
    ],
    [
      'an entry without a model',
      JSON.stringify({ v: 1, entries: [{ ...usageEntry(), model: undefined }] }),
      'entries[0].model: is required',
    ],
  ])('a message with %s is refused, naming what is wrong', (_name, body, message) => {
    expect(() => entriesOfRetryMessage(body)).toThrow(new MalformedUsageEntryError(message));
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a string count', { promptTokens: '10' }, 'promptTokens: must be a number'],
    ['a negative cost', { costMicroUsd: -1 }, 'costMicroUsd: must be a whole number, not negative'],
    ['a fractional token count', { completionTokens: 1.5 }, 'completionTokens: must be a whole number, not negative'],
    [
      'an unknown unit',
      { unit: 'parsecs', quantity: 1 },
      'unit: must be one of search, characters, songs, seconds, credits',
    ],
    ['an unknown purpose', { purpose: 'chat' }, 'purpose: must be one of answer, vote, search'],
    ['a negative quantity', { unit: 'songs', quantity: -2 }, 'quantity: must not be negative'],
    ['a fractional part of the tokens', { cachedTokens: 1.5 }, 'cachedTokens: must be a whole number, not negative'],
    [
      'a negative part of the tokens',
      { cacheWrite1hTokens: -1 },
      'cacheWrite1hTokens: must be a whole number, not negative',
    ],
    ['a part that is not a number', { reasoningTokens: '7' }, 'reasoningTokens: must be a number'],
  ])('an entry with %s cannot be counted', (_name, fields, message) => {
    expect(() => readUsageEntry({ ...usageEntry(), ...fields })).toThrow(message);
  });
});

const sqsRecord = (messageId: string, body: string): SQSRecord => ({
  messageId,
  receiptHandle: `rh-${messageId}`,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'test',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:usage-retry',
  awsRegion: 'us-east-1',
});

describe('redrive', () => {
  test('writes the entries of each message; one written before is not written again; a bad message is a batch item failure', async () => {
    const accountId = 'redrive-1';
    const entries: UsageEntry[] = [0, 1, 2].map((i) => usageEntry({ accountId, requestId: `rd-${i}` }));
    const [one, two] = [retryMessageBodies(entries.slice(0, 2))[0]!, retryMessageBodies(entries.slice(1))[0]!];
    const event: SQSEvent = { Records: [sqsRecord('m1', one), sqsRecord('m2', two), sqsRecord('m3', '{"v":1}')] };
    expect(await redriveUsageMessages(event, usage)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm3' }] });
    // Delivered again (SQS is at least once): nothing changes.
    expect(await redriveUsageMessages({ Records: event.Records.slice(0, 2) }, usage)).toEqual({
      batchItemFailures: [],
    });
    expect((await ledgerEntriesOf(usage, accountId)).map((e) => e.requestId).sort()).toEqual(['rd-0', 'rd-1', 'rd-2']);
  });
});

describe('the SQS sender', () => {
  let server: Server;
  let endpoint: string;
  const received: { target: string; authorization: string; body: Record<string, unknown> }[] = [];
  const answers: { status: number; body: string }[] = [];
  beforeAll(async () => {
    // A loopback stand-in for SQS's JSON protocol: SQS has no local stand-in in this repository yet.
    server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      received.push({
        target: String(req.headers['x-amz-target']),
        authorization: String(req.headers['authorization']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      const answer = answers.shift() ?? { status: 200, body: '{"MessageId":"m"}' };
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0' }).end(answer.body);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));
  beforeEach(() => {
    received.length = 0;
    answers.length = 0;
  });

  const sender = () =>
    sqsRetrySender({
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/usage-retry',
      region: 'us-east-1',
      endpoint,
      credentials: () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      sleep: async () => {},
    });

  test('sends one signed SendMessage per message body, to the queue it was given', async () => {
    const entries = [usageEntry({ requestId: 'q-1' }), usageEntry({ requestId: 'q-2' })];
    await sender()(entries);
    expect(received).toHaveLength(1);
    expect(received[0]!.target).toBe('AmazonSQS.SendMessage');
    expect(received[0]!.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/sqs\/aws4_request/,
    );
    expect(received[0]!.body['QueueUrl']).toBe('https://sqs.us-east-1.amazonaws.com/000000000000/usage-retry');
    expect(entriesOfRetryMessage(String(received[0]!.body['MessageBody']))).toEqual(entries);
  });

  test('a 5xx or a throttle is tried again; a refusal is not', async () => {
    answers.push({ status: 500, body: '{}' }, { status: 400, body: '{"__type":"com.amazonaws.sqs#RequestThrottled"}' });
    await sender()([usageEntry()]);
    expect(received).toHaveLength(3);

    answers.push({ status: 400, body: '{"__type":"com.amazonaws.sqs#QueueDoesNotExist"}' });
    await expect(sender()([usageEntry()])).rejects.toBeInstanceOf(RetryQueueError);
    expect(received).toHaveLength(4);
  });
});

describe('the whole retry path, through the SQS stand-in', () => {
  test('entries whose ledger call DynamoDB refused are queued, received, redriven into the ledger, and deleted from the queue', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'retry-sqs-'));
    const credentials = { accessKeyId: 'retry-test', secretAccessKey: 'retry-secret' };
    const sqs = await startSqsStandIn({ dataDir, credentials, queues: ['usage-retry'] });
    try {
      const queueUrl = sqs.queueUrl('usage-retry');
      const call = awsJsonClient({
        endpoint: sqs.url,
        region: 'us-east-1',
        service: 'sqs',
        targetPrefix: 'AmazonSQS',
        credentials: () => credentials,
      });
      const accountId = 'retry-sqs-1';
      const entries = [0, 1].map((i) => usageEntry({ accountId, requestId: `sq-${i}` }));
      let refusals = 1;
      const outcome = await recordLedgerEntries(entries, {
        db: {
          batchExecuteStatement: async (input) => {
            if (refusals-- > 0) throw new Error('socket hang up (injected)');
            return usage.db.batchExecuteStatement(input);
          },
        },
        table: usage.table,
        sendToRetryQueue: sqsRetrySender({
          queueUrl,
          region: 'us-east-1',
          endpoint: sqs.url,
          credentials: () => credentials,
        }),
      });
      // One call carried both entries: both wait in the queue.
      expect(outcome.failed.map((f) => f.entry)).toEqual(entries);

      const received = await call<{ Messages?: { MessageId: string; ReceiptHandle: string; Body: string }[] }>(
        'ReceiveMessage',
        { QueueUrl: queueUrl, MaxNumberOfMessages: 10 },
      );
      const messages = received.Messages ?? [];
      expect(messages).toHaveLength(1);
      const event: SQSEvent = { Records: messages.map((m) => sqsRecord(m.MessageId, m.Body)) };
      expect(await redriveUsageMessages(event, usage)).toEqual({ batchItemFailures: [] });
      // What the mapping does with a message the function did not report: deletes it.
      for (const message of messages)
        await call('DeleteMessage', { QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle });

      expect((await ledgerEntriesOf(usage, accountId)).map((e) => e.requestId).sort()).toEqual(['sq-0', 'sq-1']);
      const left = await call<{ Attributes: Record<string, string> }>('GetQueueAttributes', {
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      });
      expect(left.Attributes).toEqual({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
    } finally {
      await sqs.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
