import { resolveFamily } from '../../lambdas/catalog/model-catalog.js';
import { Meter } from '../../lambdas/usage/metering.js';
import { recordUsage } from '../../lambdas/usage/usage-ledger.js';
import { useGateway } from './support/gateway-fixture.js';
import { DynamoDbFaultProxy } from './support/dynamodb-faults.js';
import { bearer, call } from './support/http.js';
import { settledTotals, type Sums } from './support/ledger-totals.js';
import { expectBreakdownsSumToTotals } from './support/usage-breakdowns.js';
import type { Attempt } from '../../lambdas/chat/router.js';

// Totals must equal the sum of the ledger entries exactly, whatever fails on the way. The
// gateway's own Meter writes here (in this process) through a proxy that injects DynamoDB
// failures into its ledger puts, and sends what DynamoDB refused to the runtime's usage retry
// queue; the runtime's redrive writes those, its aggregator derives the totals from the usage
// table's stream, and its usage endpoint reads them.

const local = useGateway({ runtimeTables: true, account: 'exact', key: { via: 'admin', body: { type: 'secret' } } });
let proxy: DynamoDbFaultProxy;

beforeAll(async () => {
  proxy = await DynamoDbFaultProxy.start(local.gateway.aws.dynamodb);
  process.env['AWS_ENDPOINT_URL_DYNAMODB'] = proxy.endpoint;
});
afterAll(() => proxy.close());
afterEach(() => proxy.clear());

const MODELS = { gpt: 'gpt-5', claude: 'claude-sonnet-4-5' } as const;
/** The two families' requests come through different routes, so day totals per route are exercised too. */
const ROUTES = { gpt: 'chat-completions', claude: 'battle' } as const;

/** One request's metering, as the chat service does it: one entry per upstream attempt. */
function meteredRequest(requestId: string, at: string, family: keyof typeof MODELS, tokens: number): Meter {
  const meter = new Meter({ requestId, accountId: local.account.accountId, route: ROUTES[family], at: new Date(at) });
  const attempt: Attempt = {
    target: {
      provider: family === 'gpt' ? 'openai' : 'anthropic',
      model: MODELS[family],
      family: resolveFamily(family)!,
      requested: family,
    },
    durationMs: 5,
    usage: { prompt_tokens: tokens, completion_tokens: tokens * 2, total_tokens: tokens * 3 },
  };
  meter.attempt(attempt);
  return meter;
}

/** Flushes the meters together, so their entries share one batch. */
const flushTogether = (meters: Meter[]) => Promise.all(meters.map((meter) => meter.flush()));

/** The day's totals once they have caught up with a ledger of `requests` entries. */
async function dayState(day: string, requests: number) {
  const count = (sums: Record<string, Sums>) => Object.values(sums).reduce((n, s) => n + s.requests, 0);
  return settledTotals(local.gateway, local.account.accountId, `${day} `, (ledger) => count(ledger) === requests);
}

/** The report of the whole day says what the ledger entries (read from every shard) add up to. */
async function expectReportAgrees(day: string, ledger: Record<string, Sums>): Promise<void> {
  const report = (await call(local.gateway.url(`/api/v1/usage?from=${day}&to=${day}`), { headers: bearer(local.key) }))
    .body.data;
  const sums = Object.values(ledger);
  const sum = (field: keyof Sums) => sums.reduce((n, s) => n + s[field], 0);
  expect(report).toMatchObject({
    totalRequests: sum('requests'),
    totalTokens: sum('tokens'),
    totalCost: sum('costMicroUsd') / 1e6,
  });
  // The Meter here has no key: its usage is `none`'s.
  expect(Object.keys(report.byKey)).toEqual(['none']);
  expectBreakdownsSumToTotals(report);
}

test.each([
  // The first try lands in DynamoDB, but its answer never reaches the client, which re-sends it
  // and finds the entry there.
  ['a retried put whose first try landed but whose answer was lost', '2026-07-01', 'lose-answer', 1],
  // Every try of the client (3) fails for Claude's entry: it goes to the retry queue, and the
  // runtime's redrive writes it.
  ['an entry DynamoDB refuses on every try, drained from the retry queue', '2026-07-02', 'fail', 3],
] as const)(
  '%s: every entry counts once',
  async (_name, day, fault, times) => {
    proxy.inject(fault, `"${day}-2"`, times);
    await flushTogether([
      meteredRequest(`${day}-1`, `${day}T10:00:00.000Z`, 'gpt', 10),
      meteredRequest(`${day}-2`, `${day}T10:00:00.000Z`, 'claude', 20),
    ]);
    expect(proxy.pending).toBe(0);
    const { totals, ledger } = await dayState(day, 2);
    expect(totals).toEqual(ledger);
    expect(totals[`${day} gpt-5 chat-completions`]?.requests).toBe(1);
    expect(totals[`${day} claude-sonnet-4-5 battle`]?.requests).toBe(1);
    await expectReportAgrees(day, ledger);
  },
  60_000,
);

test('entries re-sent after a restart are not counted again', async () => {
  // Every answer is lost: the Meter cannot tell its entries landed, and queues them for a retry.
  proxy.inject('lose-answer', '"restart-', 100);
  await flushTogether([
    meteredRequest('restart-1', '2026-07-03T08:00:00.000Z', 'gpt', 10),
    meteredRequest('restart-2', '2026-07-03T08:00:00.000Z', 'claude', 20),
  ]);
  proxy.clear();
  await local.gateway.restart();
  proxy.upstream = local.gateway.aws.dynamodb;

  // After the restart the same entries are sent again, in a batch with a new one.
  await flushTogether([
    meteredRequest('restart-1', '2026-07-03T08:00:00.000Z', 'gpt', 10),
    meteredRequest('restart-2', '2026-07-03T08:00:00.000Z', 'claude', 20),
    meteredRequest('restart-3', '2026-07-03T08:00:01.000Z', 'gpt', 30),
  ]);
  const { totals, ledger } = await dayState('2026-07-03', 3);
  expect(totals).toEqual(ledger);
  expect(totals['2026-07-03 gpt-5 chat-completions']).toMatchObject({
    requests: 2,
    promptTokens: 40,
    completionTokens: 80,
  });
  expect(totals['2026-07-03 claude-sonnet-4-5 battle']).toMatchObject({ requests: 1, promptTokens: 20 });
  await expectReportAgrees('2026-07-03', ledger);
}, 60_000);

test("the single-entry writer (a job's settle step) throws when DynamoDB refuses, and a replay writes nothing", async () => {
  proxy.inject('fail', '"strict-1"', 3);
  const [entry] = meteredRequest('strict-1', '2026-07-04T12:00:00.000Z', 'gpt', 10).recorded;
  await expect(recordUsage(entry!)).rejects.toThrow();
  expect(await recordUsage(entry!)).toBe(true);
  expect(await recordUsage(entry!)).toBe(false);
  const { totals, ledger } = await dayState('2026-07-04', 1);
  expect(totals).toEqual(ledger);
  expect(totals['2026-07-04 gpt-5 chat-completions']?.requests).toBe(1);
});
