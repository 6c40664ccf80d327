import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { randomUUID } from 'node:crypto';
import type { UsageEntry } from '../../lambdas/store/usage-items.js';
import { ledgerShardPks } from '../../lambdas/store/usage-ledger-shards.js';
import { dayTotalSk, hourTotalSk, totalsPk } from '../../lambdas/store/usage-totals.js';
import { retryMessageBodies } from '../../lambdas/usage/usage-retry-messages.js';
import { LOCAL_USAGE_RETRY_QUEUE } from '../../local/runtime-config.js';
import { readStandInCredentials } from '../../local/standin-credentials.js';
import { LOCAL_SQS_ACCOUNT } from '../../local/standins/sqs.js';
import { useGateway } from './support/gateway-fixture.js';
import { storedItems } from './support/ledger-entries.js';

// The local runtime runs the usage pipeline as the stack deploys it: the usage retry queue in
// the SQS stand-in, the redrive reading it, the usage table's stream and the aggregator reading
// that. An entry sent to the retry queue (as the request path sends one DynamoDB refused) lands
// in its ledger shard once, however often it is sent, and then in the day and hour totals.

const local = useGateway();
let sqs: SQSClient;
let queueUrl: string;

beforeAll(() => {
  const aws = local.gateway.aws as typeof local.gateway.aws & { sqs: string };
  sqs = new SQSClient({
    endpoint: aws.sqs,
    region: aws.region,
    credentials: readStandInCredentials(local.gateway.dataDir),
    maxAttempts: 1,
  });
  queueUrl = `${aws.sqs}/${LOCAL_SQS_ACCOUNT}/${LOCAL_USAGE_RETRY_QUEUE}`;
});
afterAll(() => sqs.destroy());

/** Polls this many times at most, a tenth of a second apart: the pipeline runs off the request path (about a second). */
const ATTEMPTS = 100;
const pause = () => new Promise((done) => setTimeout(done, 100));

async function query(pk: string): Promise<Record<string, unknown>[]> {
  return (await storedItems(local.gateway, [pk])).map((item) => unmarshall(item));
}

function entry(accountId: string, requestId: string, promptTokens: number): UsageEntry {
  return {
    requestId,
    sequence: 0,
    accountId,
    keyId: 'key-pipeline',
    route: 'chat-completions',
    model: 'gpt-5',
    provider: 'openai',
    promptTokens,
    completionTokens: 2 * promptTokens,
    costMicroUsd: 7 * promptTokens,
    priced: true,
    estimated: false,
    cached: false,
    status: 200,
    outcome: 'ok',
    at: new Date().toISOString(),
  };
}

test('entries from the retry queue reach the ledger once and the totals exactly', async () => {
  const accountId = `pipeline-${randomUUID()}`;
  const first = entry(accountId, `req-${randomUUID()}`, 10);
  const second = entry(accountId, `req-${randomUUID()}`, 30);
  // The first entry twice (a message delivered again, a sender that retried): written once.
  for (const body of [...retryMessageBodies([first]), ...retryMessageBodies([first, second])])
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));

  const day = first.at.slice(0, 10);
  const daySk = dayTotalSk(day, 'gpt-5', 'chat-completions', 'key-pipeline');
  let totals: Record<string, unknown>[] = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    totals = await query(totalsPk(accountId));
    if (totals.some((item) => item['sk'] === daySk && item['requests'] === 2)) break;
    await pause();
  }
  const dayTotal = totals.find((item) => item['sk'] === daySk);
  expect(dayTotal).toMatchObject({ requests: 2, promptTokens: 40, completionTokens: 80, costMicroUsd: 280 });
  const hourTotals = totals.filter((item) => String(item['sk']).startsWith('HOUR#'));
  expect(hourTotals.reduce((sum, item) => sum + Number(item['requests']), 0)).toBe(2);
  if (first.at.slice(0, 13) === second.at.slice(0, 13))
    expect(hourTotals.map((item) => item['sk'])).toEqual([
      hourTotalSk(first.at.slice(0, 13), 'gpt-5', 'chat-completions', 'key-pipeline'),
    ]);

  const ledger = (await Promise.all(ledgerShardPks(accountId).map(query))).flat();
  expect(ledger.map((item) => item['requestId']).sort()).toEqual([first.requestId, second.requestId].sort());

  let waiting: Record<string, string> = {};
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    waiting =
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes ?? {};
    if (waiting['ApproximateNumberOfMessages'] === '0' && waiting['ApproximateNumberOfMessagesNotVisible'] === '0')
      break;
    await pause();
  }
  expect(waiting).toMatchObject({ ApproximateNumberOfMessages: '0', ApproximateNumberOfMessagesNotVisible: '0' });
});
