import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { recordUsage, type UsageEntry } from '../../lambdas/store/usage-ledger.js';
import { adminKey, provisionAccount, type TestAccount } from './support/accounts.js';
import { bearer, call } from './support/http.js';
import { localDynamo, useRuntimeTables } from './support/ledger.js';
import { LocalGateway } from '../../local/child-runtime.js';

let gateway: LocalGateway;
let account: TestAccount;
let key: string;

beforeAll(async () => {
  gateway = await LocalGateway.start();
  useRuntimeTables(gateway);
  account = await provisionAccount(gateway, 'usage');
  key = (await adminKey(gateway, { accountId: account.accountId, type: 'secret' })).key;
});
afterAll(() => gateway.dispose());

let sequence = 0;
const entry = (
  at: string,
  model: string,
  prompt: number,
  completion: number,
  costMicroUsd: number,
  priced = true,
): UsageEntry => ({
  requestId: `req-${sequence++}`,
  sequence: 0,
  accountId: account.accountId,
  route: 'chat-completions',
  model,
  provider: 'openai',
  promptTokens: prompt,
  completionTokens: completion,
  costMicroUsd,
  priced,
  estimated: false,
  cached: false,
  status: 200,
  at,
});

const usage = (query: string, headers: Record<string, string> = bearer(key)) =>
  call(gateway.url(`/api/v1/usage${query}`), { headers });

test('the ledger writer is idempotent by request id and sequence', async () => {
  const first = entry('2026-03-01T10:00:00.000Z', 'gpt-5', 100, 50, 1_250);
  expect(await recordUsage(first)).toBe(true);
  expect(await recordUsage(first)).toBe(false);
  expect(await recordUsage({ ...first, sequence: 1 })).toBe(true);
  const answer = await usage('?from=2026-03-01&to=2026-03-01');
  expect(answer.status).toBe(200);
  expect(answer.body.data).toMatchObject({ totalRequests: 2, totalTokens: 300, totalCost: 0.0025 });
});

test('whole days come from aggregates, partial days from the ledger, by model', async () => {
  await recordUsage(entry('2026-04-01T23:00:00.000Z', 'gpt-5', 10, 10, 100));
  await recordUsage(entry('2026-04-02T01:00:00.000Z', 'gpt-5', 20, 20, 200));
  await recordUsage(entry('2026-04-02T12:00:00.000Z', 'claude-sonnet-4-5', 30, 30, 300));
  await recordUsage(entry('2026-04-03T05:00:00.000Z', 'claude-sonnet-4-5', 40, 40, 400));
  await recordUsage(entry('2026-04-03T20:00:00.000Z', 'gpt-5', 50, 50, 500));

  const days = await usage('?from=2026-04-02&to=2026-04-03');
  expect(days.body.data).toEqual({
    totalRequests: 4,
    totalTokens: 280,
    totalCost: 0.0014,
    from: '2026-04-02T00:00:00.000Z',
    to: '2026-04-03T23:59:59.999Z',
    byModel: {
      'gpt-5': { requests: 2, tokens: 140, cost: 0.0007, unpriced: { requests: 0, tokens: 0 } },
      'claude-sonnet-4-5': { requests: 2, tokens: 140, cost: 0.0007, unpriced: { requests: 0, tokens: 0 } },
    },
    unpriced: { requests: 0, tokens: 0 },
  });

  const partial = await usage('?from=2026-04-01T22:00:00Z&to=2026-04-03T06:00:00Z');
  expect(partial.body.data).toMatchObject({ totalRequests: 4, totalTokens: 200, totalCost: 0.001 });

  const withinOneDay = await usage('?from=2026-04-02T00:30:00Z&to=2026-04-02T11:00:00Z');
  expect(withinOneDay.body.data).toMatchObject({
    totalRequests: 1,
    totalTokens: 40,
    byModel: { 'gpt-5': { requests: 1 } },
  });
});

test('usage of models without a price is flagged and reported, from day totals and from the ledger', async () => {
  await recordUsage(entry('2026-05-10T08:00:00.000Z', 'acme/unlisted-model', 100, 20, 0, false));
  await recordUsage(entry('2026-05-10T09:00:00.000Z', 'acme/unlisted-model', 30, 10, 0, false));
  await recordUsage(entry('2026-05-10T10:00:00.000Z', 'gpt-5', 10, 10, 100));
  const ledger = await ledgerEntriesOf(account.accountId, '2026-05-10');
  expect(ledger.map((item) => [item.model, item.priced])).toEqual([
    ['acme/unlisted-model', false],
    ['acme/unlisted-model', false],
    ['gpt-5', true],
  ]);

  const expected = {
    totalRequests: 3,
    totalTokens: 180,
    byModel: {
      'acme/unlisted-model': { requests: 2, tokens: 160, cost: 0, unpriced: { requests: 2, tokens: 160 } },
      'gpt-5': { requests: 1, tokens: 20, cost: 0.0001, unpriced: { requests: 0, tokens: 0 } },
    },
    unpriced: { requests: 2, tokens: 160 },
  };
  const wholeDay = await usage('?from=2026-05-10&to=2026-05-10');
  expect(wholeDay.body.data).toMatchObject(expected);
  const partialDay = await usage('?from=2026-05-10T01:00:00Z&to=2026-05-10T23:00:00Z');
  expect(partialDay.body.data).toMatchObject(expected);
});

test('the dashboard session reads the same usage', async () => {
  const bySession = await usage('?from=2026-04-02&to=2026-04-03', { Cookie: account.cookie });
  const byKey = await usage('?from=2026-04-02&to=2026-04-03', { 'X-API-Key': key });
  expect(bySession.status).toBe(200);
  expect(bySession.body.data).toEqual(byKey.body.data);
});

test('defaults to the last 30 days', async () => {
  const answer = await usage('');
  const { from, to } = answer.body.data;
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  expect(days).toBeGreaterThan(29);
  expect(days).toBeLessThanOrEqual(30);
  expect(Math.abs(Date.parse(to) - Date.now())).toBeLessThan(60_000);
});

test.each([
  ['?from=yesterday', 'from'],
  ['?to=2026-13-01', 'to'],
  ['?from=2026-02-30', 'from'],
  ['?from=2026-05-02&to=2026-05-01', 'from'],
  ['?from=2020-01-01&to=2026-01-01', 'from'],
])('%s is a 400 naming %s', async (query, field) => {
  const answer = await usage(query);
  expect(answer.status).toBe(400);
  expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
});

async function ledgerEntriesOf(accountId: string, day: string): Promise<{ model: string; priced?: boolean }[]> {
  const dynamo = localDynamo(gateway);
  try {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: gateway.aws.tables.usage,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: `ACCOUNT#${accountId}` }, ':prefix': { S: `LEDGER#${day}` } },
      }),
    );
    return (page.Items ?? []).map((item) => unmarshall(item) as { model: string; priced?: boolean });
  } finally {
    dynamo.destroy();
  }
}
