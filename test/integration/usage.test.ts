import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { resolveFamily } from '../../lambdas/catalog/index.js';
import { Meter } from '../../lambdas/gateway/metering.js';
import { recordUsage, type UsageEntry } from '../../lambdas/store/usage-ledger.js';
import { adminKey, provisionAccount, type TestAccount } from './support/accounts.js';
import { bearer, call } from './support/http.js';
import { accountItems, ledgerEntries } from './support/ledger-entries.js';
import { localDynamo, useRuntimeTables } from './support/ledger.js';
import { expectBreakdownsSumToTotals, type UsageReportData } from './support/usage-breakdowns.js';
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
  route = 'chat-completions',
): UsageEntry => ({
  requestId: `req-${sequence++}`,
  sequence: 0,
  accountId: account.accountId,
  route,
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
    byRoute: {
      'chat-completions': { requests: 4, tokens: 280, cost: 0.0014, unpriced: { requests: 0, tokens: 0 } },
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

describe('by route', () => {
  const withoutPeriod = ({ from: _from, to: _to, ...figures }: UsageReportData & { from: string; to: string }) =>
    figures;
  const report = async (query: string) => {
    const answer = await usage(`?${query}`);
    expect(answer.status).toBe(200);
    return answer.body.data as UsageReportData & { from: string; to: string };
  };

  async function chat(model: string, stream: boolean): Promise<string> {
    const answer = await call(gateway.url('/api/v1/chat/completions'), {
      headers: bearer(key),
      body: { model, stream, messages: [{ role: 'user', content: `count me through ${model}` }] },
    });
    expect(answer.status).toBe(200);
    return answer.headers.get('x-request-id')!;
  }

  /** An arena turn's metering as the arena does it: its own request id, route and tags. */
  async function arenaTurn(sessionId: string, agent: string, purpose: 'answer' | 'vote', at: Date): Promise<void> {
    const meter = new Meter({
      requestId: `${sessionId}/r1/${agent}/${purpose}`,
      accountId: account.accountId,
      route: 'fight',
      at,
      tags: { sessionId, round: 1, agent, purpose },
    });
    meter.attempt({
      target: {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        family: resolveFamily('claude')!,
        requested: 'claude',
      },
      durationMs: 5,
      usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 },
    });
    await meter.flush();
  }

  test('chat completions are reported under their route, next to an arena route, from day totals and from the ledger', async () => {
    const startedAt = new Date();
    const today = startedAt.toISOString().slice(0, 10);
    const requestIds = [await chat('gpt', false), await chat('claude', false), await chat('gpt', true)];
    for (const id of requestIds) expect(await ledgerEntries(gateway, account.accountId, id, 1)).toHaveLength(1);
    await arenaTurn('ses_route-1', 'claude', 'answer', startedAt);
    await arenaTurn('ses_route-1', 'claude', 'vote', startedAt);

    const wholeDay = await report(`from=${today}&to=${today}`);
    const ledgerOnly = await report(`from=${today}T00:00:00.001Z&to=${today}T23:59:59.999Z`);
    expect(withoutPeriod(wholeDay)).toEqual(withoutPeriod(ledgerOnly));
    expect(Object.keys(wholeDay.byRoute).sort()).toEqual(['chat-completions', 'fight']);
    expect(wholeDay.byRoute['chat-completions']!.requests).toBe(3);
    expect(wholeDay.byRoute['fight']).toMatchObject({ requests: 2, tokens: 100 });
    expect(wholeDay.totalRequests).toBe(5);
    expectBreakdownsSumToTotals(wholeDay);
    expectBreakdownsSumToTotals(ledgerOnly);

    const ledger = (await accountItems(gateway, account.accountId)).filter((item) => item['type'] === 'ledger');
    const chats = ledger.filter((item) => requestIds.includes(String(item['requestId'])));
    expect(chats.map((item) => item['route'])).toEqual(['chat-completions', 'chat-completions', 'chat-completions']);
    for (const item of chats)
      for (const tag of ['sessionId', 'round', 'agent', 'purpose']) expect(item).not.toHaveProperty(tag);
    const arena = ledger.filter((item) => item['route'] === 'fight');
    expect(
      arena.map((item) => [item['requestId'], item['sessionId'], item['round'], item['agent'], item['purpose']]),
    ).toEqual(
      expect.arrayContaining([
        ['ses_route-1/r1/claude/answer', 'ses_route-1', 1, 'claude', 'answer'],
        ['ses_route-1/r1/claude/vote', 'ses_route-1', 1, 'claude', 'vote'],
      ]),
    );
  });

  test('a day total written before totals were kept per route is reported as unattributed', async () => {
    const dynamo = localDynamo(gateway);
    try {
      await dynamo.send(
        new PutItemCommand({
          TableName: gateway.aws.tables.usage,
          Item: marshall({
            pk: `ACCOUNT#${account.accountId}`,
            sk: 'DAY#2026-08-01#gpt-5',
            type: 'day',
            accountId: account.accountId,
            day: '2026-08-01',
            model: 'gpt-5',
            requests: 4,
            tokens: 400,
            promptTokens: 300,
            completionTokens: 100,
            costMicroUsd: 4_000,
          }),
        }),
      );
    } finally {
      dynamo.destroy();
    }
    await recordUsage(entry('2026-08-01T12:00:00.000Z', 'gpt-5', 30, 20, 500));
    await recordUsage(entry('2026-08-01T13:00:00.000Z', 'gpt-5', 10, 10, 200, true, 'battle'));

    const day = await report('from=2026-08-01&to=2026-08-01');
    expect(day.byRoute).toEqual({
      unattributed: { requests: 4, tokens: 400, cost: 0.004, unpriced: { requests: 0, tokens: 0 } },
      'chat-completions': { requests: 1, tokens: 50, cost: 0.0005, unpriced: { requests: 0, tokens: 0 } },
      battle: { requests: 1, tokens: 20, cost: 0.0002, unpriced: { requests: 0, tokens: 0 } },
    });
    expect(day.byModel).toEqual({
      'gpt-5': { requests: 6, tokens: 470, cost: 0.0047, unpriced: { requests: 0, tokens: 0 } },
    });
    expectBreakdownsSumToTotals(day);
  });
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
