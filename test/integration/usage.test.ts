import { settledUsage } from './support/settled-usage.js';
import { resolveFamily } from '../../lambdas/catalog/model-catalog.js';
import { Meter } from '../../lambdas/usage/metering.js';
import { recordUsage, type UsageEntry } from '../../lambdas/usage/usage-ledger.js';
import { adminKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { ledgerEntries, ledgerItems } from './support/ledger-entries.js';
import { expectBreakdownsSumToTotals, type UsageReportData } from './support/usage-breakdowns.js';
import { parseKey } from '../../lambdas/identity/api-key-format.js';
import { useGateway } from './support/gateway-fixture.js';
import type { Attempt } from '../../lambdas/chat/router.js';

const local = useGateway({ runtimeTables: true, account: 'usage', key: { via: 'admin', body: { type: 'secret' } } });

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
  accountId: local.account.accountId,
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

const usage = (query: string, headers: Record<string, string> = bearer(local.key)) =>
  call(local.gateway.url(`/api/v1/usage${query}`), { headers });

const settled = (query: string, requests: number, headers: Record<string, string> = bearer(local.key)) =>
  settledUsage(local.gateway.url(`/api/v1/usage${query}`), headers, requests);

const FREE = { requests: 0, tokens: 0 };

test('the ledger writer is idempotent by request id and sequence', async () => {
  const first = entry('2026-03-01T10:00:00.000Z', 'gpt-5', 100, 50, 1_250);
  expect(await recordUsage(first)).toBe(true);
  expect(await recordUsage(first)).toBe(false);
  expect(await recordUsage({ ...first, sequence: 1 })).toBe(true);
  const answer = await settled('?from=2026-03-01&to=2026-03-01', 2);
  expect(answer.body.data).toMatchObject({ totalRequests: 2, totalTokens: 300, totalCost: 0.0025 });
});

test('whole days from the day totals, the hours at either end from the hour totals, by model', async () => {
  await recordUsage(entry('2026-04-01T23:00:00.000Z', 'gpt-5', 10, 10, 100));
  await recordUsage(entry('2026-04-02T01:00:00.000Z', 'gpt-5', 20, 20, 200));
  await recordUsage(entry('2026-04-02T12:00:00.000Z', 'claude-sonnet-4-5', 30, 30, 300));
  await recordUsage(entry('2026-04-03T05:00:00.000Z', 'claude-sonnet-4-5', 40, 40, 400));
  await recordUsage(entry('2026-04-03T20:00:00.000Z', 'gpt-5', 50, 50, 500));
  await settled('?from=2026-04-01&to=2026-04-03', 5);

  const days = await usage('?from=2026-04-02&to=2026-04-03');
  const figures = { requests: 4, tokens: 280, cost: 0.0014, unpriced: FREE };
  expect(days.body.data).toEqual({
    totalRequests: 4,
    totalTokens: 280,
    totalCost: 0.0014,
    from: '2026-04-02T00:00:00.000Z',
    to: '2026-04-03T23:59:59.999Z',
    byModel: {
      'gpt-5': { requests: 2, tokens: 140, cost: 0.0007, unpriced: FREE },
      'claude-sonnet-4-5': { requests: 2, tokens: 140, cost: 0.0007, unpriced: FREE },
    },
    byRoute: { 'chat-completions': figures },
    // These entries were made without a key.
    byKey: { none: figures },
    unpriced: FREE,
  });

  const partial = await usage('?from=2026-04-01T22:00:00Z&to=2026-04-03T06:00:00Z');
  expect(partial.body.data).toMatchObject({
    totalRequests: 4,
    totalTokens: 200,
    totalCost: 0.001,
    // Widened to the end of the hour `to` falls in: the report says what it counted.
    from: '2026-04-01T22:00:00.000Z',
    to: '2026-04-03T06:59:59.999Z',
  });

  const withinOneDay = await usage('?from=2026-04-02T00:30:00Z&to=2026-04-02T11:00:00Z');
  expect(withinOneDay.body.data).toMatchObject({
    totalRequests: 1,
    totalTokens: 40,
    byModel: { 'gpt-5': { requests: 1 } },
    from: '2026-04-02T00:00:00.000Z',
    to: '2026-04-02T11:59:59.999Z',
  });

  // Within one hour: that hour's total, never less than what was asked for.
  const withinOneHour = await usage('?from=2026-04-03T05:10:00Z&to=2026-04-03T05:20:00Z');
  expect(withinOneHour.body.data).toMatchObject({ totalRequests: 1, totalTokens: 80 });
});

test('usage of models without a price is flagged and reported, from day totals and from hour totals', async () => {
  await recordUsage(entry('2026-05-10T08:00:00.000Z', 'acme/unlisted-model', 100, 20, 0, false));
  await recordUsage(entry('2026-05-10T09:00:00.000Z', 'acme/unlisted-model', 30, 10, 0, false));
  await recordUsage(entry('2026-05-10T10:00:00.000Z', 'gpt-5', 10, 10, 100));
  const ledger = (await ledgerItems(local.gateway, local.account.accountId))
    .filter(
      (item) => String(item.requestId).startsWith('req-') && (item as unknown as { day: string }).day === '2026-05-10',
    )
    .sort((a, b) => a.requestId.localeCompare(b.requestId, 'en', { numeric: true }));
  expect(ledger.map((item) => [item.model, (item as unknown as { priced: boolean }).priced])).toEqual([
    ['acme/unlisted-model', false],
    ['acme/unlisted-model', false],
    ['gpt-5', true],
  ]);

  const expected = {
    totalRequests: 3,
    totalTokens: 180,
    byModel: {
      'acme/unlisted-model': { requests: 2, tokens: 160, cost: 0, unpriced: { requests: 2, tokens: 160 } },
      'gpt-5': { requests: 1, tokens: 20, cost: 0.0001, unpriced: FREE },
    },
    unpriced: { requests: 2, tokens: 160 },
  };
  const wholeDay = await settled('?from=2026-05-10&to=2026-05-10', 3);
  expect(wholeDay.body.data).toMatchObject(expected);
  const partialDay = await usage('?from=2026-05-10T01:00:00Z&to=2026-05-10T22:00:00Z');
  expect(partialDay.body.data).toMatchObject(expected);
});

test('the dashboard session reads the same usage', async () => {
  await settled('?from=2026-04-02&to=2026-04-03', 4);
  const bySession = await usage('?from=2026-04-02&to=2026-04-03', { Cookie: local.account.cookie });
  const byKey = await usage('?from=2026-04-02&to=2026-04-03', { 'X-API-Key': local.key });
  expect(bySession.status).toBe(200);
  expect(bySession.body.data).toEqual(byKey.body.data);
});

test('defaults to the last 30 days, to the end of the current hour', async () => {
  const before = Date.now();
  const answer = await usage('');
  const { from, to } = answer.body.data;
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  expect(days).toBeGreaterThan(29);
  expect(days).toBeLessThanOrEqual(30 + 1 / 24);
  expect(Date.parse(to) + 1).toBe(Math.floor(before / 3_600_000) * 3_600_000 + 3_600_000);
});

test.each([
  ['?from=yesterday', 'from'],
  ['?to=2026-13-01', 'to'],
  ['?from=2026-02-30', 'from'],
  ['?from=2026-05-02&to=2026-05-01', 'from'],
  ['?from=2020-01-01&to=2026-01-01', 'from'],
  ['?keyId=sk_live', 'keyId'],
  ['?keyId=' + 'a'.repeat(21), 'keyId'],
])('%s is a 400 naming %s', async (query, field) => {
  const answer = await usage(query);
  expect(answer.status).toBe(400);
  expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', field });
});

describe('by route and by key', () => {
  const report = async (query: string, requests: number) =>
    (await settled(`?${query}`, requests)).body.data as UsageReportData & { from: string; to: string };

  async function chat(model: string, stream: boolean, apiKey = local.key): Promise<string> {
    const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: bearer(apiKey),
      body: { model, stream, messages: [{ role: 'user', content: `count me through ${model}` }] },
    });
    expect(answer.status).toBe(200);
    return answer.headers.get('x-request-id')!;
  }

  /** An arena turn's metering as the arena does it: its own request id, route and tags. */
  async function arenaTurn(sessionId: string, agent: string, purpose: 'answer' | 'vote', at: Date): Promise<void> {
    const meter = new Meter({
      requestId: `${sessionId}/r1/${agent}/${purpose}`,
      accountId: local.account.accountId,
      route: 'fight',
      at,
      tags: { sessionId, round: 1, agent, purpose },
    });
    const attempt: Attempt = {
      target: {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        family: resolveFamily('claude')!,
        requested: 'claude',
      },
      durationMs: 5,
      usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 },
    };
    meter.attempt(attempt);
    await meter.flush();
  }

  test('chat completions are reported under their route and key, next to an arena route, as the ledger adds up', async () => {
    const startedAt = new Date();
    const today = startedAt.toISOString().slice(0, 10);
    const requestIds = [await chat('gpt', false), await chat('claude', false), await chat('gpt', true)];
    for (const id of requestIds)
      expect(await ledgerEntries(local.gateway, local.account.accountId, id, 1)).toHaveLength(1);
    await arenaTurn('ses_route-1', 'claude', 'answer', startedAt);
    await arenaTurn('ses_route-1', 'claude', 'vote', startedAt);

    const wholeDay = await report(`from=${today}&to=${today}`, 5);
    expect(Object.keys(wholeDay.byRoute).sort()).toEqual(['chat-completions', 'fight']);
    expect(wholeDay.byRoute['chat-completions']!.requests).toBe(3);
    expect(wholeDay.byRoute['fight']).toMatchObject({ requests: 2, tokens: 100 });
    expect(wholeDay.totalRequests).toBe(5);
    const { keyId } = parseKey(local.key)!;
    expect(wholeDay.byKey[keyId]!.requests).toBe(3);
    expect(wholeDay.byKey['none']).toMatchObject({ requests: 2, tokens: 100 });
    expectBreakdownsSumToTotals(wholeDay);

    // The independent reading: today's ledger entries, from every shard, add up to the report.
    const ledger = (await ledgerItems(local.gateway, local.account.accountId)) as unknown as Record<string, unknown>[];
    const todays = ledger.filter((item) => item['day'] === today);
    expect(todays).toHaveLength(5);
    const sum = (field: string) => todays.reduce((n, item) => n + Number(item[field]), 0);
    expect(wholeDay.totalTokens).toBe(sum('totalTokens'));
    expect(Math.round(wholeDay.totalCost * 1e6)).toBe(sum('costMicroUsd'));

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

  test('keyId counts one key only, a revoked key included; the others are in byKey', async () => {
    const owner = await provisionAccount(local.gateway, 'usage-by-key');
    const first = await adminKey(local.gateway, { accountId: owner.accountId, type: 'secret' });
    const second = await adminKey(local.gateway, { accountId: owner.accountId, type: 'secret' });
    await chat('gpt', false, first.key);
    await chat('gpt', false, first.key);
    await chat('claude', false, second.key);
    const today = new Date().toISOString().slice(0, 10);
    const ofOwner = async (query: string, requests: number) =>
      (await settled(`?from=${today}&to=${today}${query}`, requests, bearer(first.key))).body.data as UsageReportData;
    const all = await ofOwner('', 3);
    expect(Object.fromEntries(Object.entries(all.byKey).map(([id, figures]) => [id, figures.requests]))).toEqual({
      [first.keyId]: 2,
      [second.keyId]: 1,
    });
    expectBreakdownsSumToTotals(all);

    const revoke = await call(local.gateway.url(`/api/admin/v1/keys/${second.keyId}`), {
      method: 'DELETE',
      headers: bearer(local.gateway.info.adminToken),
    });
    expect(revoke.status).toBe(204);
    const onlySecond = await ofOwner(`&keyId=${second.keyId}`, 1);
    expect(onlySecond).toMatchObject({ totalRequests: 1, byModel: { 'claude-sonnet-4-5': { requests: 1 } } });
    expect(Object.keys(onlySecond.byKey)).toEqual([second.keyId]);
    expect(await ofOwner(`&keyId=${first.keyId}`, 2)).toMatchObject({ totalRequests: 2 });
    // Another account's key, or usage without a key: nothing of this account's.
    expect(await ofOwner(`&keyId=${parseKey(local.key)!.keyId}`, 0)).toMatchObject({ totalRequests: 0, byKey: {} });
    expect(await ofOwner('&keyId=none', 0)).toMatchObject({ totalRequests: 0 });
  });
});
