import { httpErrorOf } from '../../../lambdas/http/errors.js';
import type { ChatRequest } from '../../../lambdas/providers/chat-types.js';
import {
  budgetCounterRef,
  keyBudgetScope,
  accountBudgetScope,
  readBudgetCounters,
  type StoredBudget,
} from '../../../lambdas/store/budget-counters.js';
import { BudgetError } from '../../../lambdas/usage/budget-errors.js';
import { submitWithReservation } from '../../../lambdas/jobs/job-reservations.js';
import {
  BudgetHolds,
  DYNAMODB_BUDGET_STORE,
  settleHeldBudgets,
  type BudgetStore,
  type ScopedBudget,
} from '../../../lambdas/usage/budget-holds.js';
import {
  callCostBoundMicroUsd,
  IMAGE_TOKENS_BOUND,
  OUTPUT_CAP_TOKENS,
  promptTokenBound,
} from '../../../lambdas/usage/call-cost-bound.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';

/**
 * Budgets by reservation (docs/interface.md, "Budgets"): the bound a call reserves, worked out
 * here by hand from gpt-5's list price ($1.25 input, $10 output per million tokens), and the
 * counters in the embedded DynamoDB, shared by "instances" that know nothing of each other.
 */

const db = useLocalDynamoDb('budgets');
beforeAll(() => {
  process.env['IDENTITY_TABLE'] = db().tableNames.identity;
});

const NOW = new Date('2026-11-27T15:30:00.000Z');
const ask = (text: string, maxTokens?: number): ChatRequest => ({
  model: 'gpt-5',
  messages: [{ role: 'user', content: text }],
  ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
});
let seq = 0;
const fresh = (budget: StoredBudget, owner: ScopedBudget['owner'] = 'key'): ScopedBudget => ({
  owner,
  scope: owner === 'key' ? keyBudgetScope(`key_${++seq}`) : accountBudgetScope(`acct_${++seq}`),
  budget,
});

/** One request's holds, its deferred settlements collected to await. */
function request(budgets: readonly ScopedBudget[], store: BudgetStore = DYNAMODB_BUDGET_STORE, now = NOW) {
  const deferred: Promise<void>[] = [];
  const holds = new BudgetHolds(budgets, { store, now: () => now, defer: (task) => void deferred.push(task()) });
  return { holds, settled: () => Promise.all(deferred) };
}
const counter = async (budget: ScopedBudget, now = NOW) =>
  (await readBudgetCounters([budgetCounterRef(budget.scope, budget.budget.period, now)]))[0]!;

describe('the most a call can cost', () => {
  test('text: its UTF-8 bytes and 8 tokens a message, at the input price; the output at max_tokens', () => {
    // 'héllo' is 6 bytes; one message: 8 + 6 = 14 prompt tokens.
    expect(promptTokenBound(ask('héllo'))).toBe(14);
    // 14 × 1.25 + 100 × 10 = 1,017.5 micro-USD, rounded up.
    expect(callCostBoundMicroUsd('gpt-5', ask('héllo', 100))).toBe(1_018);
    // No max_tokens: the output cap.
    expect(callCostBoundMicroUsd('gpt-5', ask('héllo'))).toBe(Math.ceil(14 * 1.25 + OUTPUT_CAP_TOKENS * 10));
  });

  test('images at their bound, tools with their overhead, and the dearest prompt rate', () => {
    const withImage: ChatRequest = {
      model: 'gpt-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(100_000)}` } },
          ],
        },
      ],
      max_tokens: 10,
    };
    // The image's bytes do not count, its bound does.
    expect(promptTokenBound(withImage)).toBe(8 + 13 + IMAGE_TOKENS_BOUND);
    const tools: ChatRequest = {
      ...ask('hi', 10),
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    const toolsJson = JSON.stringify(tools.tools).length;
    expect(promptTokenBound(tools)).toBe(8 + 2 + 1_000 + toolsJson);
    // Claude's 1-hour cache write ($6) is its dearest prompt rate: 10 prompt tokens × 6 + 10 × 15.
    expect(callCostBoundMicroUsd('claude-sonnet-4-5', { ...ask('ab', 10), model: 'claude-sonnet-4-5' })).toBe(210);
  });

  test('an unpriced model reserves nothing (it is metered at 0)', () => {
    expect(callCostBoundMicroUsd('no-such-model', ask('hi', 10))).toBe(0);
  });
});

describe('reservations', () => {
  test('a call that fits is reserved, sent with an output cap, and settled to its cost', async () => {
    const budget = fresh({ limitMicroUsd: 1_000_000, period: 'day' });
    const { holds, settled } = request([budget]);
    const sent = await holds.admit('gpt-5', ask('hello'));
    expect(sent.max_tokens).toBe(OUTPUT_CAP_TOKENS);
    const reserved = Math.ceil(13 * 1.25 + OUTPUT_CAP_TOKENS * 10);
    expect(await counter(budget)).toEqual({ committedMicroUsd: reserved, spentMicroUsd: 0 });
    holds.settle(2_500);
    await settled();
    expect(await counter(budget)).toEqual({ committedMicroUsd: 2_500, spentMicroUsd: 2_500 });
  });

  test("a caller's own max_tokens is kept; a failed call (cost 0) gives its reservation back", async () => {
    const budget = fresh({ limitMicroUsd: 1_000_000, period: 'month' });
    const { holds, settled } = request([budget]);
    expect((await holds.admit('gpt-5', ask('hello', 50))).max_tokens).toBe(50);
    holds.settle(0);
    await settled();
    expect(await counter(budget)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
  });

  test('a call the budget cannot hold is refused before it is made, with a 402 naming the budget and its reset', async () => {
    const budget = fresh({ limitMicroUsd: 100_000, period: 'day' });
    const { holds } = request([budget]);
    const refused = await holds.admit('gpt-5', ask('hello')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BudgetError);
    const answer = httpErrorOf(refused as BudgetError);
    expect(answer.status).toBe(402);
    expect(answer.code).toBe('BUDGET_EXCEEDED');
    expect(answer.param).toBe('budget.key');
    expect(answer.message).toMatch(/^This key's day budget of \$0\.10 cannot hold this call \(up to \$0\.16\d+\)/);
    expect(answer.message).toContain('it resets at 2026-11-28T00:00:00.000Z');
    // 8.5 hours to midnight UTC.
    expect(answer.headers?.['Retry-After']).toBe(String(8.5 * 3600));
    expect(await counter(budget)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
  });

  test("when the account's budget refuses, the key's reservation is given back", async () => {
    const key = fresh({ limitMicroUsd: 10_000_000, period: 'day' });
    const account = fresh({ limitMicroUsd: 1_000, period: 'total' }, 'account');
    const { holds, settled } = request([key, account]);
    const refused = await holds.admit('gpt-5', ask('hello', 1_000)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BudgetError);
    expect(httpErrorOf(refused as BudgetError).message).toContain("This account's total budget of $0.001000");
    expect(httpErrorOf(refused as BudgetError).headers?.['Retry-After']).toBeUndefined();
    await settled();
    expect(await counter(key)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
  });

  test('each period keeps its own counter: tomorrow starts at zero', async () => {
    const budget = fresh({ limitMicroUsd: 20_000, period: 'day' });
    const today = request([budget]);
    await today.holds.admit('gpt-5', ask('x', 1_000));
    today.holds.settle(10_000);
    await today.settled();
    await expect(request([budget]).holds.admit('gpt-5', ask('x', 1_000))).rejects.toBeInstanceOf(BudgetError);
    const tomorrow = new Date('2026-11-28T00:00:01.000Z');
    await expect(
      request([budget], DYNAMODB_BUDGET_STORE, tomorrow).holds.admit('gpt-5', ask('x', 1_000)),
    ).resolves.toBeDefined();
    expect(budgetCounterRef(budget.scope, 'month', NOW)).toMatchObject({
      periodStart: '2026-11',
      resetsAt: new Date('2026-12-01T00:00:00.000Z'),
    });
  });
});

test('50 concurrent calls against a budget that fits 10: never more committed than the limit, nor spent', async () => {
  // Each call reserves 8 + 2 prompt tokens and 1,000 output: ceil(10 × 1.25 + 10,000) = 10,013.
  const perCall = callCostBoundMicroUsd('gpt-5', ask('go', 1_000));
  expect(perCall).toBe(10_013);
  const budget = fresh({ limitMicroUsd: 10 * perCall + 5_000, period: 'total' });
  // Independent requests (as on many instances): each its own holds; only DynamoDB is shared.
  const admitRound = () =>
    Promise.all(
      Array.from({ length: 50 }, async () => {
        const one = request([budget]);
        try {
          await one.holds.admit('gpt-5', ask('go', 1_000));
          return one;
        } catch (error) {
          expect(error).toBeInstanceOf(BudgetError);
          return undefined;
        }
      }),
    ).then((all) => all.filter((one) => one !== undefined));
  // All 50 at once, none settled yet: exactly as many as the limit holds.
  const first = await admitRound();
  expect(first).toHaveLength(10);
  expect(await counter(budget)).toEqual({ committedMicroUsd: 10 * perCall, spentMicroUsd: 0 });
  // Settled below their reservations (what the calls really cost), the room they leave is
  // taken by the next round, and so on until nothing fits: the spend never passes the limit.
  let spent = 0;
  for (let round = 0, admitted = first; admitted.length > 0; round++, admitted = await admitRound()) {
    expect(round).toBeLessThan(20);
    await Promise.all(
      admitted.map(async (one, i) => {
        const cost = Math.floor(perCall * (0.25 + (i % 4) / 4));
        spent += cost;
        one.holds.settle(cost);
        await one.settled();
      }),
    );
    expect(await counter(budget)).toEqual({ committedMicroUsd: spent, spentMicroUsd: spent });
  }
  expect(spent).toBeLessThanOrEqual(budget.budget.limitMicroUsd);
  // What is left is less than one more call's reservation.
  expect(budget.budget.limitMicroUsd - spent).toBeLessThan(perCall);
});

test('a settlement DynamoDB keeps refusing leaves the reservation committed (the budget refuses early, never late)', async () => {
  const budget = fresh({ limitMicroUsd: 1_000_000, period: 'day' });
  let settles = 0;
  const failing: BudgetStore = {
    reserve: DYNAMODB_BUDGET_STORE.reserve,
    settle: async () => {
      settles++;
      throw new Error('ProvisionedThroughputExceededException');
    },
  };
  const { holds, settled } = request([budget], failing);
  await holds.admit('gpt-5', ask('go', 1_000));
  holds.settle(1);
  await settled();
  expect(settles).toBe(4);
  expect(await counter(budget)).toEqual({ committedMicroUsd: 10_013, spentMicroUsd: 0 });
});

test('without budgets nothing is reserved, capped or written', async () => {
  const calls: string[] = [];
  const watching: BudgetStore = {
    reserve: async () => (calls.push('reserve'), true),
    settle: async () => (calls.push('settle'), { committedMicroUsd: 0, spentMicroUsd: 0 }),
  };
  const { holds, settled } = request([], watching);
  expect(holds.active).toBe(false);
  const request_ = ask('go');
  expect(await holds.admit('gpt-5', request_)).toBe(request_);
  holds.settle(5);
  await settled();
  expect(calls).toEqual([]);
});

test('thresholds: each of 50, 80 and 100% is told once, by the settlement whose spend reaches it', async () => {
  const budget = fresh({ limitMicroUsd: 100_000, period: 'day' });
  const told: number[] = [];
  const settleAt = async (cost: number) => {
    const deferred: Promise<void>[] = [];
    const holds = new BudgetHolds([budget], {
      store: DYNAMODB_BUDGET_STORE,
      now: () => NOW,
      defer: (task) => void deferred.push(task()),
      observe: (crossing) => {
        expect(crossing).toMatchObject({ budget, periodStart: '2026-11-27' });
        told.push(crossing.thresholdPercent);
      },
    });
    await holds.admit('gpt-5', ask('x', 1));
    holds.settle(cost);
    await Promise.all(deferred);
  };
  await settleAt(49_999);
  expect(told).toEqual([]);
  await settleAt(1); // exactly 50%
  expect(told).toEqual([50]);
  await settleAt(40_000); // 90%: past 80 only
  expect(told).toEqual([50, 80]);
  await settleAt(0); // a release tells nothing
  // Each call reserves 8 + 1 prompt tokens and 1 output: ceil(9 × 1.25 + 10) = 22.
  await settleAt(9_978);
  expect(told).toEqual([50, 80]);
  await settleAt(22); // exactly the limit: 100%
  expect(told).toEqual([50, 80, 100]);
  await expect(settleAt(0)).rejects.toBeInstanceOf(BudgetError);
});

test('a counter DynamoDB cannot write fails the call unmade with 503, and gives back what was reserved', async () => {
  const key = fresh({ limitMicroUsd: 1_000_000, period: 'day' });
  const account = fresh({ limitMicroUsd: 1_000_000, period: 'day' }, 'account');
  const throttled: BudgetStore = {
    reserve: async (ref, limit, amount) => {
      if (ref.scope === account.scope) throw new Error('ProvisionedThroughputExceededException');
      return DYNAMODB_BUDGET_STORE.reserve(ref, limit, amount);
    },
    settle: DYNAMODB_BUDGET_STORE.settle,
  };
  const { holds, settled } = request([key, account], throttled);
  const refused = await holds.admit('gpt-5', ask('go', 10)).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(BudgetError);
  const answer = httpErrorOf(refused as BudgetError);
  expect([answer.status, answer.code, answer.headers['Retry-After']]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
  await settled();
  expect(await counter(key)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
});

describe('a job reservation, held across invocations', () => {
  test('a refused submission gives the reservation back; an accepted one hands it to the job, settled when it ends', async () => {
    const budget = fresh({ limitMicroUsd: 1_000_000, period: 'day' }, 'key');
    const refused = submitWithReservation([budget], 400_000, async () => {
      throw new Error('upstream refused the job');
    });
    await expect(refused).rejects.toThrow('upstream refused the job');
    expect(await counter(budget)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });

    const accepted = await submitWithReservation([budget], 400_000, async () => 'task-1');
    expect(accepted.value).toBe('task-1');
    expect(accepted.budgetHolds).toEqual(
      [{ ...budgetCounterRef(budget.scope, 'day', new Date()), amountMicroUsd: 400_000, budget }].map(
        ({ resetsAt: _r, ...held }) => held,
      ),
    );
    expect((await counter(budget, new Date())).committedMicroUsd).toBe(400_000);
    // Later, in the invocation that ends the job: settled to its metered cost.
    await settleHeldBudgets(accepted.budgetHolds!, 250_000);
    expect(await counter(budget, new Date())).toEqual({ committedMicroUsd: 250_000, spentMicroUsd: 250_000 });
  });

  test('without budgets a submission reserves nothing and hands nothing on', async () => {
    expect(await submitWithReservation([], 400_000, async () => 'task-2')).toEqual({ value: 'task-2' });
  });
});
