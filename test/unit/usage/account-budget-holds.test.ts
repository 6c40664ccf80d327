import type { ChatRequest } from '../../../lambdas/providers/chat-types.js';
import {
  budgetCounterRef,
  keyBudgets,
  keyBudgetScope,
  readBudgetCounters,
} from '../../../lambdas/store/budget-counters.js';
import { accountBudgets, BUDGET_SHARDS, readShardedCounter } from '../../../lambdas/store/budget-shards.js';
import { BudgetError } from '../../../lambdas/usage/budget-errors.js';
import {
  BudgetHolds,
  DYNAMODB_BUDGET_STORE,
  settleHeldBudgets,
  type ScopedBudget,
} from '../../../lambdas/usage/budget-holds.js';
import type { BudgetThresholdCrossing } from '../../../lambdas/usage/budget-notices.js';
import { ShardedCrossingWatch } from '../../../lambdas/usage/sharded-crossings.js';
import { callCostBoundMicroUsd } from '../../../lambdas/usage/call-cost-bound.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';

/**
 * An account's budget as requests hold it (lambdas/usage/budget-holds.ts over
 * lambdas/store/budget-shards.ts): reserved on shards, refused naming the account, and its
 * thresholds told once however many instances settle on it. Each "instance" here is a
 * BudgetHolds with a watch of its own, sharing nothing but the embedded DynamoDB.
 */

const db = useLocalDynamoDb('account-budgets');
beforeAll(() => {
  process.env['IDENTITY_TABLE'] = db().tableNames.identity;
});

const NOW = new Date('2026-11-27T15:30:00.000Z');
const ask = (maxTokens: number): ChatRequest => ({
  model: 'gpt-5',
  messages: [{ role: 'user', content: 'go' }],
  max_tokens: maxTokens,
});
let seq = 0;
const account = (limitMicroUsd: number): ScopedBudget =>
  accountBudgets(`acc_holds${++seq}`, { limitMicroUsd, period: 'day' })[0]!;
const spentOf = async (budget: ScopedBudget) =>
  readShardedCounter(budgetCounterRef(budget.scope, 'day', NOW), budget.shards);

function instance(budgets: readonly ScopedBudget[], watch: ShardedCrossingWatch, told: BudgetThresholdCrossing[] = []) {
  const deferred: Promise<void>[] = [];
  const holds = new BudgetHolds(budgets, {
    store: DYNAMODB_BUDGET_STORE,
    now: () => NOW,
    defer: (task) => void deferred.push(task()),
    observe: (crossing) => void told.push(crossing),
    watch,
  });
  return { holds, settled: () => Promise.all(deferred) };
}
const newWatch = () => new ShardedCrossingWatch([50, 80, 100], undefined, 0);

test("an account's budget is kept on shards and counted whole", () => {
  const [budget] = accountBudgets('acc_x', { limitMicroUsd: 5_000_000, period: 'month' });
  expect(budget).toEqual({
    owner: 'account',
    scope: 'ACCOUNT#acc_x',
    budget: { limitMicroUsd: 5_000_000, period: 'month' },
    shards: BUDGET_SHARDS,
  });
  expect(accountBudgets('acc_x', undefined)).toEqual([]);
});

test("a call the account's budget cannot hold is refused naming the account, and the key's reservation is given back", async () => {
  const perCall = callCostBoundMicroUsd('gpt-5', ask(1_000));
  const keyId = `key_holds${++seq}`;
  const [key] = keyBudgets(keyId, { limitMicroUsd: 1_000_000, period: 'day' });
  const budget = account(perCall - 1);
  const { holds, settled } = instance([key!, budget], newWatch());
  const refused = await holds.admit('gpt-5', ask(1_000)).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(BudgetError);
  expect((refused as BudgetError).message).toMatch(/^This account's day budget of \$[\d.]+ cannot hold this call/);
  await settled();
  const [keyCounter] = await readBudgetCounters([budgetCounterRef(keyBudgetScope(keyId), 'day', NOW)]);
  expect(keyCounter).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
  expect(await spentOf(budget)).toEqual({ committedMicroUsd: 0, spentMicroUsd: 0 });
});

test('30 calls at once from three instances against an account budget that fits about 10: the spend never passes it', async () => {
  const perCall = callCostBoundMicroUsd('gpt-5', ask(1_000));
  const budget = account(Math.round(10.5 * perCall));
  const watches = [newWatch(), newWatch(), newWatch()];
  const outcomes = await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const one = instance([budget], watches[i % 3]!);
      try {
        await one.holds.admit('gpt-5', ask(1_000));
      } catch (error) {
        expect(error).toBeInstanceOf(BudgetError);
        await one.settled();
        return 0;
      }
      // Each admitted call costs what it reserved: the worst case for the limit.
      one.holds.settle(perCall);
      await one.settled();
      return perCall;
    }),
  );
  const spent = outcomes.reduce((a, b) => a + b, 0);
  expect(spent).toBeLessThanOrEqual(budget.budget.limitMicroUsd);
  expect(spent / perCall).toBeGreaterThanOrEqual(8);
  expect(await spentOf(budget)).toEqual({ committedMicroUsd: spent, spentMicroUsd: spent });
});

test('thresholds of a sharded budget are told once each, by whichever instance reads the sum first', async () => {
  const budget = account(1_000_000);
  const told: BudgetThresholdCrossing[] = [];
  const watches = [newWatch(), newWatch()];
  // Twenty calls of $0.05 on alternating instances: 100% of the limit, in 5% steps.
  for (let i = 0; i < 20; i++) {
    const one = instance([budget], watches[i % 2]!, told);
    await one.holds.admit('gpt-5', ask(1_000));
    one.holds.settle(50_000);
    await one.settled();
  }
  expect(await spentOf(budget)).toEqual({ committedMicroUsd: 1_000_000, spentMicroUsd: 1_000_000 });
  expect(told.map((c) => c.thresholdPercent)).toEqual([50, 80, 100]);
  for (const crossing of told) {
    expect(crossing).toMatchObject({ budget, periodStart: '2026-11-27' });
    expect(crossing.spentMicroUsd).toBeGreaterThanOrEqual((1_000_000 * crossing.thresholdPercent) / 100);
  }
});

test('a full budget tells its 100% when a call is refused, even when no settlement read the sum', async () => {
  const budget = account(100_000);
  const told: BudgetThresholdCrossing[] = [];
  // This instance's watch reads the sum at most once an hour: the settlement's check finds 100%.
  const slow = new ShardedCrossingWatch([50, 80, 100], undefined, 3_600_000);
  const filling = instance([budget], slow, told);
  await filling.holds.hold(100_000);
  filling.holds.settle(100_000);
  await filling.settled();
  expect(told.map((c) => c.thresholdPercent)).toEqual([50, 80, 100]);
  // Another instance refused afterwards finds them already claimed: nothing told twice.
  const other = instance([budget], newWatch(), told);
  await expect(other.holds.hold(1)).rejects.toBeInstanceOf(BudgetError);
  await other.settled();
  expect(told.map((c) => c.thresholdPercent)).toEqual([50, 80, 100]);
});

test("a job's reservation settled in another invocation tells the thresholds its cost crosses", async () => {
  const keyId = `key_job${++seq}`;
  const [key] = keyBudgets(keyId, { limitMicroUsd: 1_000_000, period: 'day' });
  const one = instance([key!], newWatch());
  await one.holds.hold(900_000);
  const held = one.holds.detach();
  expect(held).toEqual([expect.objectContaining({ amountMicroUsd: 900_000, budget: key })]);
  const told: BudgetThresholdCrossing[] = [];
  await settleHeldBudgets(held, 850_000, DYNAMODB_BUDGET_STORE, (crossing) => void told.push(crossing));
  expect(told.map((c) => c.thresholdPercent)).toEqual([50, 80]);
});
