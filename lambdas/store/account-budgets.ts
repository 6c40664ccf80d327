import { storedBudgetOf, type StoredBudget } from './budget-counters.js';
import { dynamo, fromItem, tableName, toItem } from './dynamo.js';

/**
 * An account's budget (docs/interface.md §2.5): the limit every call of the account falls under,
 * whichever key or dashboard session makes it, beside each key's own. One identity-table item
 * beside the account's profile, `ACCOUNT#<id>` / `BUDGET`; its spend is kept on sharded counters
 * (budget-shards.ts), not here, so changing the limit never touches what was spent.
 */

const budgetKey = (accountId: string) => toItem({ pk: `ACCOUNT#${accountId}`, sk: 'BUDGET' });

export async function getAccountBudget(accountId: string): Promise<StoredBudget | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('identity'),
    Key: budgetKey(accountId),
    ConsistentRead: true,
  });
  if (!Item) return undefined;
  return storedBudgetOf(fromItem<{ budget?: unknown }>(Item).budget, `account ${accountId}`);
}

/** Sets the account's budget, or removes it (null). */
export async function setAccountBudget(
  accountId: string,
  budget: StoredBudget | null,
  now = new Date(),
): Promise<void> {
  if (budget === null) {
    await dynamo().deleteItem({ TableName: tableName('identity'), Key: budgetKey(accountId) });
    return;
  }
  await dynamo().putItem({
    TableName: tableName('identity'),
    Item: { ...budgetKey(accountId), ...toItem({ accountId, budget: { ...budget }, updatedAt: now.toISOString() }) },
  });
}
