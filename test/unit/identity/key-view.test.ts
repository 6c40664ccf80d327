import { describeIssuedKey, describeKeys, describeUpdatedKey } from '../../../lambdas/identity/key-view.js';
import type { ApiKeyRecord } from '../../../lambdas/store/api-keys.js';
import {
  budgetCounterRef,
  keyBudgetScope,
  reserveBudget,
  settleBudget,
  type BudgetPeriod,
} from '../../../lambdas/store/budget-counters.js';
import { DynamoDbCallCounter, type ItemTouch } from '../../support/dynamodb-call-counter.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';

/**
 * Keys as answered, with their budgets' spend: what is read (the budgeted keys' counters, in one
 * call) and what is shown, at fixed instants, so period ends across a month and a year are
 * checked whatever the clock says.
 */

const db = useLocalDynamoDb('keyview');
let counter: DynamoDbCallCounter;
const touches: ItemTouch[] = [];

beforeAll(async () => {
  counter = await DynamoDbCallCounter.start(process.env['AWS_ENDPOINT_URL_DYNAMODB']!, (touch) => touches.push(touch));
  // Before the store's client is first made: every call of this file goes through the counter.
  process.env['AWS_ENDPOINT_URL_DYNAMODB'] = counter.endpoint;
  process.env['IDENTITY_TABLE'] = db().tableNames.identity;
});
afterAll(() => counter.close());
beforeEach(() => {
  touches.length = 0;
});

let n = 0;
function keyWith(period?: BudgetPeriod, limitMicroUsd = 10_000_000): ApiKeyRecord {
  n += 1;
  return {
    keyId: `viewkey${n}`,
    accountId: 'acct-view',
    type: 'secret',
    hash: 'never answered',
    name: `key ${n}`,
    rateLimit: 60,
    enabled: true,
    revoked: false,
    allowedOrigins: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    ...(period ? { budget: { limitMicroUsd, period } } : {}),
  };
}

const LAST_SECOND_OF_FEBRUARY = new Date('2026-02-28T23:59:59.999Z');

test("a listing reads every budgeted key's counter in one call, and none for keys without a budget", async () => {
  const [daily, plain, monthly, total] = [keyWith('day'), keyWith(), keyWith('month'), keyWith('total')];
  const at = LAST_SECOND_OF_FEBRUARY;
  await settleBudget(budgetCounterRef(keyBudgetScope(daily.keyId), 'day', at), 0, 1_500_000);
  expect(await reserveBudget(budgetCounterRef(keyBudgetScope(daily.keyId), 'day', at), 10_000_000, 250_000)).toBe(true);
  await settleBudget(budgetCounterRef(keyBudgetScope(total.keyId), 'total', at), 0, 3);
  touches.length = 0;

  const views = await describeKeys([daily, plain, monthly, total], at);

  expect(new Set(touches.map((touch) => touch.operation))).toEqual(new Set(['BatchGetItem']));
  expect(touches.map((touch) => `${touch.pk} ${touch.sk}`).sort()).toEqual(
    [
      `BUDGET#KEY#${daily.keyId} 2026-02-28`,
      `BUDGET#KEY#${monthly.keyId} 2026-02`,
      `BUDGET#KEY#${total.keyId} total`,
    ].sort(),
  );
  expect(views.map((view) => [view.id, view.budget])).toEqual([
    [
      daily.keyId,
      { limitUsd: 10, period: 'day', spentUsd: 1.5, reservedUsd: 0.25, resetsAt: '2026-03-01T00:00:00.000Z' },
    ],
    [plain.keyId, null],
    [
      monthly.keyId,
      { limitUsd: 10, period: 'month', spentUsd: 0, reservedUsd: 0, resetsAt: '2026-03-01T00:00:00.000Z' },
    ],
    [total.keyId, { limitUsd: 10, period: 'total', spentUsd: 0.000003, reservedUsd: 0, resetsAt: null }],
  ]);
});

test('a listing of keys without budgets reads nothing', async () => {
  const views = await describeKeys([keyWith(), keyWith()], LAST_SECOND_OF_FEBRUARY);
  expect(views.map((view) => view.budget)).toEqual([null, null]);
  expect(touches).toEqual([]);
});

test("the period is the one the instant falls in: yesterday's spend is not today's, and December's month ends with the year", async () => {
  const key = keyWith('day');
  await settleBudget(
    budgetCounterRef(keyBudgetScope(key.keyId), 'day', new Date('2026-12-30T12:00:00Z')),
    0,
    4_000_000,
  );
  const [view] = await describeKeys([key], new Date('2026-12-31T00:00:00Z'));
  expect(view!.budget).toEqual({
    limitUsd: 10,
    period: 'day',
    spentUsd: 0,
    reservedUsd: 0,
    resetsAt: '2027-01-01T00:00:00.000Z',
  });
  const monthly = keyWith('month', 1);
  const [monthView] = await describeKeys([monthly], new Date('2026-12-15T08:00:00Z'));
  expect(monthView!.budget).toMatchObject({ limitUsd: 0.000001, resetsAt: '2027-01-01T00:00:00.000Z' });
});

test('an update answers the listing fields with keyId and updated; creation answers no spend and reads nothing', async () => {
  const key = keyWith('month', 2_000_000);
  await settleBudget(budgetCounterRef(keyBudgetScope(key.keyId), 'month', LAST_SECOND_OF_FEBRUARY), 0, 500_000);
  const updated = await describeUpdatedKey(key, LAST_SECOND_OF_FEBRUARY);
  expect(updated).toMatchObject({ id: key.keyId, keyId: key.keyId, updated: true, name: key.name });
  expect(updated.budget).toMatchObject({ limitUsd: 2, spentUsd: 0.5 });
  expect(updated).not.toHaveProperty('hash');

  touches.length = 0;
  const issued = describeIssuedKey({ record: key, key: 'sk_full' }, LAST_SECOND_OF_FEBRUARY);
  expect(issued.budget).toEqual({
    limitUsd: 2,
    period: 'month',
    spentUsd: 0,
    reservedUsd: 0,
    resetsAt: '2026-03-01T00:00:00.000Z',
  });
  expect(touches).toEqual([]);
});
