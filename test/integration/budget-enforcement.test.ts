import { setTimeout as sleep } from 'node:timers/promises';
import {
  budgetCounterRef,
  keyBudgets,
  keyBudgetScope,
  readBudgetCounters,
  type BudgetCounter,
} from '../../lambdas/store/budget-counters.js';
import { BudgetHolds, DYNAMODB_BUDGET_STORE } from '../../lambdas/usage/budget-holds.js';
import { callCostBoundMicroUsd } from '../../lambdas/usage/call-cost-bound.js';
import { meteredFor } from '../support/job-upstream.js';
import { arenaStream, eventsOf } from './support/arena.js';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';
import { createKey, provisionAccount, type TestAccount } from './support/provisioning.js';
import { SimulatorControl } from './support/simulators.js';

/**
 * A key's budget enforced over HTTP (docs/interface.md §2.5): calls reserve their greatest cost
 * before they go upstream and settle to what the ledger metered. The ledger, read apart from the
 * counters, is the oracle: what the budget says was spent is what was metered, and that never
 * passes the limit, however many calls race for it from however many instances.
 */
// Jobs poll every 100 ms here rather than every 10 s.
const local = useGateway({ runtimeTables: true, simulator: 'openai', env: { GATEWAY_JOB_WAIT_MS: '100' } });

const MAX_TOKENS = 1_000;
const PROMPT = 'Count to three.';

interface ErrorBody {
  readonly error: { readonly code: string; readonly param?: string; readonly message: string };
}

interface Budgeted {
  readonly account: TestAccount;
  readonly keyId: string;
  readonly key: string;
  readonly limitMicroUsd: number;
}

/** A fresh account (its ledger is this key's alone) and a key created with a `total` budget. */
async function budgetedKey(label: string, limitUsd: number): Promise<Budgeted> {
  const account = await provisionAccount(local.gateway, label);
  const { keyId, key } = await createKey(local.gateway, account, { budget: { limitUsd, period: 'total' } });
  return { account, keyId, key, limitMicroUsd: Math.round(limitUsd * 1e6) };
}

const counterOf = async (keyId: string): Promise<BudgetCounter> =>
  (await readBudgetCounters([budgetCounterRef(keyBudgetScope(keyId), 'total', new Date())]))[0]!;

/** Waits until every settlement (after-response work) is in: nothing reserved is left open. */
async function settledCounter(keyId: string): Promise<BudgetCounter> {
  for (let i = 0; i < 200; i++) {
    const counter = await counterOf(keyId);
    if (counter.committedMicroUsd === counter.spentMicroUsd) return counter;
    await sleep(50);
  }
  throw new Error('reservations still open');
}

/** Waits for the ledger to hold `requests` entries of the account. */
async function ledgerOf(accountId: string, requests: number) {
  for (let i = 0; i < 200; i++) {
    const metered = await meteredFor(accountId);
    if (metered.requests >= requests) return metered;
    await sleep(50);
  }
  throw new Error(`the ledger never reached ${requests} entries`);
}

const chat = (key: string, body: Record<string, unknown> = {}, signal?: AbortSignal) =>
  fetch(local.gateway.url('/api/v1/chat/completions'), {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json', 'X-Cache': 'no-cache' },
    body: JSON.stringify({
      model: 'gpt',
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: MAX_TOKENS,
      ...body,
    }),
    signal,
  });

test('50 calls at once from two instances against a budget that fits about 10: the spend never passes the limit', async () => {
  // What each call reserves (the chat core sends the request as the caller gave it, plus a temperature).
  const perCall = callCostBoundMicroUsd('gpt-5', {
    model: 'gpt-5',
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: MAX_TOKENS,
  });
  const budget = await budgetedKey('race', (10.5 * perCall) / 1e6);
  // Instance one: the runtime, 40 calls over HTTP. Instance two: this process, 10 calls that
  // reserve through the same production code and are charged their whole reservation.
  const other = keyBudgets(budget.keyId, { limitMicroUsd: budget.limitMicroUsd, period: 'total' });
  const [answers, ours] = await Promise.all([
    Promise.all(
      Array.from({ length: 40 }, () =>
        chat(budget.key).then(async (r) => ({ status: r.status, body: (await r.json()) as ErrorBody })),
      ),
    ),
    Promise.all(
      Array.from({ length: 10 }, async () => {
        const deferred: Promise<void>[] = [];
        const holds = new BudgetHolds(other, {
          store: DYNAMODB_BUDGET_STORE,
          now: () => new Date(),
          defer: (task) => void deferred.push(task()),
        });
        try {
          await holds.admit('gpt-5', {
            model: 'gpt-5',
            messages: [{ role: 'user', content: PROMPT }],
            max_tokens: MAX_TOKENS,
          });
        } catch {
          return 0;
        }
        holds.settle(perCall);
        await Promise.all(deferred);
        return perCall;
      }),
    ),
  ]);
  const served = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 402);
  expect(served.length + refused.length).toBe(40);
  for (const answer of refused) {
    expect(answer.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', param: 'budget.key' });
    expect(answer.body.error.message).toMatch(/^This key's total budget of \$[\d.]+ cannot hold this call/);
  }
  const oursSpent = ours.reduce((sum, cost) => sum + cost, 0);
  // At least the ten the limit holds at once were admitted between the two instances.
  expect(served.length + oursSpent / perCall).toBeGreaterThanOrEqual(10);

  const counter = await settledCounter(budget.keyId);
  const ledger = await ledgerOf(budget.account.accountId, served.length);
  // The ledger (the runtime's calls) and this instance's charges are what the budget counts.
  expect(counter.spentMicroUsd).toBe(ledger.costMicroUsd + oursSpent);
  expect(counter.spentMicroUsd).toBeLessThanOrEqual(budget.limitMicroUsd);
});

test('a call the budget cannot hold is refused with 402 before any upstream call', async () => {
  const budget = await budgetedKey('tiny', 0.001);
  const simulator = SimulatorControl.of(local.gateway, 'openai');
  await simulator.reset();
  const answer = await chat(budget.key);
  expect(answer.status).toBe(402);
  expect(answer.headers.get('retry-after')).toBeNull();
  expect(((await answer.json()) as { error: unknown }).error).toMatchObject({
    code: 'BUDGET_EXCEEDED',
    param: 'budget.key',
  });
  expect(await simulator.requests()).toEqual([]);
  expect(await counterOf(budget.keyId)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
});

test('a failed upstream call gives its reservation back', async () => {
  const budget = await budgetedKey('failed', 1);
  const simulator = SimulatorControl.of(local.gateway, 'openai');
  await simulator.reset();
  // A 400 from the upstream is the caller's own mistake: no retry, no other route.
  await simulator.fault('status:400', 1, 'gpt-5');
  const answer = await chat(budget.key);
  expect(answer.status).toBe(400);
  const ledger = await ledgerOf(budget.account.accountId, 1);
  expect(ledger.costMicroUsd).toBe(0);
  expect(await settledCounter(budget.keyId)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
});

test('a stream the caller cuts settles its reservation to what was metered for it', async () => {
  const budget = await budgetedKey('cut', 1);
  const controller = new AbortController();
  const answer = await chat(
    budget.key,
    {
      stream: true,
      messages: [{ role: 'user', content: `${PROMPT} [sim:words=400] [sim:token_ms=20]` }],
    },
    controller.signal,
  );
  expect(answer.status).toBe(200);
  const reader = answer.body!.getReader();
  await reader.read();
  // Mid-answer, the reservation is open: committed, not yet spent.
  const open = await counterOf(budget.keyId);
  expect(open.committedMicroUsd).toBeGreaterThan(0);
  expect(open.spentMicroUsd).toBe(0);
  controller.abort();
  const ledger = await ledgerOf(budget.account.accountId, 1);
  const counter = await settledCounter(budget.keyId);
  expect(ledger.costMicroUsd).toBeGreaterThan(0);
  expect(counter).toEqual({ committedMicroUsd: ledger.costMicroUsd, spentMicroUsd: ledger.costMicroUsd });
  expect(counter.spentMicroUsd).toBeLessThan(open.committedMicroUsd);
});

test("a battle reserves per agent turn: the turn the key's budget cannot hold ends in budget_exceeded, the one it can is served", async () => {
  // $0.006: gpt-5's turn reserves about $0.02 (its output cap at $10 a million), llama's about $0.005.
  const budget = await budgetedKey('battle', 0.006);
  const stream = await arenaStream(local.gateway, '/api/v1/battle', budget.key, {
    message: 'Tell me a fact.',
    models: ['gpt', 'llama'],
  });
  const errors = eventsOf(stream, 'error');
  expect(errors.map((e) => [e['agent'], e['code']])).toEqual([['gpt', 'budget_exceeded']]);
  expect(String(errors[0]!['error'])).toMatch(/^This key's total budget of \$0\.006000 cannot hold this call/);
  expect(eventsOf(stream, 'agent_complete').map((e) => e['agent'])).toEqual(['llama']);
  // gpt-5 was never asked; llama's turn is charged what the ledger metered for it.
  const ledger = await ledgerOf(budget.account.accountId, 1);
  expect(ledger.requests).toBe(1);
  const counter = await settledCounter(budget.keyId);
  expect(counter.spentMicroUsd).toBe(ledger.costMicroUsd);
  expect(counter.spentMicroUsd).toBeLessThanOrEqual(budget.limitMicroUsd);
});

describe('every metered call reserves: search, speech, music', () => {
  const cases: [string, string, string, Record<string, unknown>][] = [
    ['search', 'exa', '/api/v1/search', { query: 'budgets' }],
    ['speech', 'minimax', '/api/v1/media/speech', { text: 'Hello there.' }],
    ['music', 'minimax', '/api/v1/media/music', { prompt: 'a calm tune' }],
  ];

  test.each(cases)(
    '%s the budget cannot hold is refused with 402, never sent upstream',
    async (_name, provider, path, body) => {
      const budget = await budgetedKey(`tiny-${_name}`, 0.000001);
      const simulator = SimulatorControl.of(local.gateway, provider);
      await simulator.reset();
      const answer = await fetch(local.gateway.url(path), {
        method: 'POST',
        headers: { ...bearer(budget.key), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(402);
      expect(((await answer.json()) as { error: unknown }).error).toMatchObject({
        code: 'BUDGET_EXCEEDED',
        field: 'budget.key',
      });
      expect(await simulator.requests()).toEqual([]);
      expect(await counterOf(budget.keyId)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
    },
  );

  test('a search within the budget is charged what the ledger metered', async () => {
    const budget = await budgetedKey('search', 1);
    const answer = await fetch(local.gateway.url('/api/v1/search'), {
      method: 'POST',
      headers: { ...bearer(budget.key), 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'budgets' }),
    });
    expect(answer.status).toBe(200);
    const ledger = await ledgerOf(budget.account.accountId, 1);
    expect(ledger.costMicroUsd).toBeGreaterThan(0);
    expect(await settledCounter(budget.keyId)).toEqual({
      committedMicroUsd: ledger.costMicroUsd,
      spentMicroUsd: ledger.costMicroUsd,
    });
  });
});

describe('jobs reserve when submitted and settle when they end', () => {
  const submitVideo = (key: string, prompt: string) =>
    fetch(local.gateway.url('/api/v1/media/video'), {
      method: 'POST',
      headers: { ...bearer(key), 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt, duration: 6 }),
    });
  const videoStatus = async (key: string, taskId: string) => {
    const answer = await fetch(local.gateway.url(`/api/v1/media/video/status?task_id=${taskId}`), {
      headers: bearer(key),
    });
    return ((await answer.json()) as { data: { status: string } }).data.status;
  };
  async function ended(key: string, taskId: string): Promise<string> {
    for (let i = 0; i < 400; i++) {
      const status = await videoStatus(key, taskId);
      if (status === 'Success' || status === 'Fail') return status;
      await sleep(50);
    }
    throw new Error('the job never ended');
  }

  test('a video the budget cannot hold is refused with 402 and never submitted', async () => {
    const budget = await budgetedKey('video-tiny', 0.01);
    const minimax = SimulatorControl.of(local.gateway, 'minimax');
    await minimax.reset();
    const answer = await submitVideo(budget.key, 'A lighthouse at dusk');
    expect(answer.status).toBe(402);
    expect(((await answer.json()) as { error: unknown }).error).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect((await minimax.requests()).filter((r) => r.path === '/v1/video_generation')).toEqual([]);
    expect(await counterOf(budget.keyId)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
  });

  test('a video that succeeds is charged, when it ends, what the ledger metered for it', async () => {
    const budget = await budgetedKey('video', 100);
    const answer = await submitVideo(budget.key, 'A lighthouse at dusk');
    expect(answer.status).toBe(200);
    const taskId = ((await answer.json()) as { data: { task_id: string } }).data.task_id;
    // Submitted, not ended: the reservation is held, nothing spent.
    const held = await counterOf(budget.keyId);
    expect(held.committedMicroUsd).toBeGreaterThan(0);
    expect(await ended(budget.key, taskId)).toBe('Success');
    const ledger = await ledgerOf(budget.account.accountId, 1);
    expect(ledger.costMicroUsd).toBeGreaterThan(0);
    expect(await settledCounter(budget.keyId)).toEqual({
      committedMicroUsd: ledger.costMicroUsd,
      spentMicroUsd: ledger.costMicroUsd,
    });
    expect(ledger.costMicroUsd).toBeLessThanOrEqual(held.committedMicroUsd);
  });

  test('a video that fails upstream gives its reservation back when it ends', async () => {
    const budget = await budgetedKey('video-fail', 100);
    const answer = await submitVideo(budget.key, 'A lighthouse at dusk [sim:fail]');
    expect(answer.status).toBe(200);
    const taskId = ((await answer.json()) as { data: { task_id: string } }).data.task_id;
    expect(await ended(budget.key, taskId)).toBe('Fail');
    expect(await settledCounter(budget.keyId)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
  });
});

describe("an account's budget", () => {
  const budgetUrl = () => local.gateway.url('/api/v1/budget');

  test('is set and removed from the dashboard and by the operator, read with a key, and refused naming the field', async () => {
    const account = await provisionAccount(local.gateway, 'account-budget');
    const { key } = await createKey(local.gateway, account);
    const read = async () => (await call(budgetUrl(), { method: 'GET', headers: bearer(key) })).body.data;
    expect(await read()).toEqual({ budget: null, webhookUrl: null });

    const set = await call(budgetUrl(), {
      method: 'PATCH',
      headers: account.session,
      body: { budget: { limitUsd: 25, period: 'month' } },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.budget).toMatchObject({ limitUsd: 25, period: 'month', spentUsd: 0, reservedUsd: 0 });
    expect(await read()).toEqual(set.body.data);

    for (const [body, field] of [
      [{ budget: { limitUsd: 0, period: 'day' } }, 'budget.limitUsd'],
      [{ budget: { limitUsd: 1, period: 'week' } }, 'budget.period'],
      [{}, 'budget'],
    ] as const) {
      const refused = await call(budgetUrl(), { method: 'PATCH', headers: account.session, body });
      expect([refused.status, refused.body.error.code]).toEqual([400, 'BAD_REQUEST']);
      expect(JSON.stringify(refused.body.error)).toContain(field);
    }
    // A key cannot change the budget it spends under.
    const byKey = await call(budgetUrl(), { method: 'PATCH', headers: bearer(key), body: { budget: null } });
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'FORBIDDEN']);

    const admin = (accountId: string, body: unknown) =>
      call(local.gateway.url(`/api/admin/v1/accounts/${accountId}`), {
        method: 'PATCH',
        headers: bearer(local.gateway.info.adminToken),
        body,
      });
    const byOperator = await admin(account.accountId, { budget: { limitUsd: 3, period: 'total' } });
    expect(byOperator.status).toBe(200);
    expect(byOperator.body.data).toMatchObject({
      accountId: account.accountId,
      budget: { limitUsd: 3, period: 'total', resetsAt: null },
    });
    expect((await admin('acc_nosuchaccount', { budget: null })).status).toBe(404);
    expect((await admin(account.accountId, { budget: null })).body.data.budget).toBeNull();
    expect(await read()).toEqual({ budget: null, webhookUrl: null });
  });

  test('50 calls at once from two keys against an account budget that fits about 10: the account never spends past it', async () => {
    const perCall = callCostBoundMicroUsd('gpt-5', {
      model: 'gpt-5',
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: MAX_TOKENS,
    });
    const account = await provisionAccount(local.gateway, 'account-race');
    const limitMicroUsd = Math.round(10.5 * perCall);
    const set = await call(budgetUrl(), {
      method: 'PATCH',
      headers: account.session,
      body: { budget: { limitUsd: limitMicroUsd / 1e6, period: 'day' } },
    });
    expect(set.status).toBe(200);
    const keys = await Promise.all([createKey(local.gateway, account), createKey(local.gateway, account)]);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        chat(keys[i % 2]!.key).then(async (r) => ({ status: r.status, body: (await r.json()) as ErrorBody })),
      ),
    );
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 402);
    expect(served.length + refused.length).toBe(50);
    for (const answer of refused) {
      expect(answer.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', param: 'budget.account' });
      expect(answer.body.error.message).toMatch(/^This account's day budget of \$[\d.]+ cannot hold this call/);
    }
    expect(served.length).toBeGreaterThanOrEqual(8);

    const ledger = await ledgerOf(account.accountId, served.length);
    // The budget's own reading (GET /api/v1/budget) once every settlement is in, against the ledger.
    let budget: { spentUsd: number; reservedUsd: number } = { spentUsd: -1, reservedUsd: -1 };
    for (let i = 0; i < 200; i++) {
      budget = (await call(budgetUrl(), { method: 'GET', headers: bearer(keys[0]!.key) })).body.data.budget;
      if (budget.reservedUsd === 0 && Math.round(budget.spentUsd * 1e6) === ledger.costMicroUsd) break;
      await sleep(50);
    }
    expect(Math.round(budget.spentUsd * 1e6)).toBe(ledger.costMicroUsd);
    expect(budget.reservedUsd).toBe(0);
    expect(ledger.costMicroUsd).toBeLessThanOrEqual(limitMicroUsd);
  });
});
