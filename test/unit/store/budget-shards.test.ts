import { dynamo } from '../../../lambdas/store/dynamo.js';
import {
  accountBudgetScope,
  budgetCounterRef,
  settleBudget,
  type BudgetCounterRef,
} from '../../../lambdas/store/budget-counters.js';
import {
  BUDGET_SHARDS,
  claimCrossing,
  readShardedCounter,
  reserveOnShards,
  shardShare,
} from '../../../lambdas/store/budget-shards.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';

/**
 * An account's budget on shards (lambdas/store/budget-shards.ts), against the embedded DynamoDB.
 * The oracle reads the shard items by their keys, spelled out here, and sums them itself.
 */

const db = useLocalDynamoDb('budget-shards');
beforeAll(() => {
  process.env['IDENTITY_TABLE'] = db().tableNames.identity;
});

let seq = 0;
const freshAccount = () => `acc_shards${++seq}`;
const periodOf = (accountId: string): BudgetCounterRef =>
  budgetCounterRef(accountBudgetScope(accountId), 'total', new Date());

/** Every shard item of the account's `total` counter, read one by one by its key. */
async function shardItems(accountId: string, shards = BUDGET_SHARDS) {
  const items = await Promise.all(
    Array.from({ length: shards }, (_, i) =>
      dynamo().getItem({
        TableName: db().tableNames.identity,
        Key: { pk: { S: `BUDGET#ACCOUNT#${accountId}#${i}` }, sk: { S: 'total' } },
        ConsistentRead: true,
      }),
    ),
  );
  return items.map(({ Item }) => ({
    committed: Number(Item?.['committed']?.N ?? 0),
    spent: Number(Item?.['spent']?.N ?? 0),
  }));
}
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

test('the shares split the limit exactly, the remainder to the first shards', () => {
  for (const limit of [1, 31, 32, 33, 1_000_001, 987_654_321]) {
    const shares = Array.from({ length: BUDGET_SHARDS }, (_, i) => shardShare(limit, BUDGET_SHARDS, i));
    expect(sum(shares)).toBe(limit);
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
  }
});

test('a reservation within a shard’s share lands on one shard, the one it names', async () => {
  const accountId = freshAccount();
  const reserved = await reserveOnShards(periodOf(accountId), 3_200_000, 50_000, BUDGET_SHARDS, undefined, () => 0.5);
  expect(reserved?.ref.scope).toBe(`ACCOUNT#${accountId}#16`);
  const items = await shardItems(accountId);
  expect(items[16]!.committed).toBe(50_000);
  expect(sum(items.map((i) => i.committed))).toBe(50_000);
});

test('a reservation larger than any share borrows room from other shards, in one transaction', async () => {
  const accountId = freshAccount();
  // Each share is 100,000; the call wants ten of them.
  const reserved = await reserveOnShards(periodOf(accountId), 3_200_000, 1_000_000);
  expect(reserved).toBeDefined();
  const items = await shardItems(accountId);
  expect(sum(items.map((i) => i.committed))).toBe(1_000_000);
  // No shard counts more than its share against the limit (lenders count what they lent).
  for (const item of items) expect(item.committed).toBeLessThanOrEqual(100_000);
  // Settling on the shard it landed on moves the reservation to the cost.
  await settleBudget(reserved!.ref, 1_000_000, 400_000);
  expect(await readShardedCounter(periodOf(accountId))).toEqual({ committedMicroUsd: 400_000, spentMicroUsd: 400_000 });
});

test('the shards fill to the limit exactly: refused only when all of them together cannot hold the call', async () => {
  const accountId = freshAccount();
  const limit = 3_200_000;
  const amount = 70_000; // not a divisor of a share: fragments are left on every shard
  let granted = 0;
  for (;;) {
    const reserved = await reserveOnShards(periodOf(accountId), limit, amount);
    if (!reserved) break;
    granted += amount;
  }
  expect(granted).toBeLessThanOrEqual(limit);
  expect(limit - granted).toBeLessThan(amount);
  expect(sum((await shardItems(accountId)).map((i) => i.committed))).toBe(granted);
});

test('many concurrent reservations of mixed sizes never commit more than the limit', async () => {
  const accountId = freshAccount();
  const limit = 2_000_000;
  const amounts = Array.from({ length: 120 }, (_, i) => 10_000 + ((i * 7_919) % 90_000));
  const results = await Promise.all(amounts.map((amount) => reserveOnShards(periodOf(accountId), limit, amount)));
  const granted = sum(amounts.filter((_, i) => results[i] !== undefined));
  const committed = sum((await shardItems(accountId)).map((i) => i.committed));
  expect(committed).toBe(granted);
  expect(committed).toBeLessThanOrEqual(limit);
  // The limit was the constraint: most of it went to calls (races may refuse a few early).
  expect(granted).toBeGreaterThan(limit * 0.8);
});

test('a call larger than the whole limit is refused without a write', async () => {
  const accountId = freshAccount();
  expect(await reserveOnShards(periodOf(accountId), 1_000, 1_001)).toBeUndefined();
  expect(sum((await shardItems(accountId)).map((i) => i.committed))).toBe(0);
});

test('a crossing is claimed once, whoever claims it first', async () => {
  const ref = periodOf(freshAccount());
  const claims = await Promise.all(Array.from({ length: 8 }, () => claimCrossing(ref, 80)));
  expect(claims.filter(Boolean)).toHaveLength(1);
  expect(await claimCrossing(ref, 100)).toBe(true);
});
