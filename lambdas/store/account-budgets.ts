import { storedBudgetOf, type StoredBudget } from './budget-counters.js';
import { dynamo, fromItem, tableName, toItem } from './dynamo.js';

/**
 * An account's budget settings (docs/interface.md §2.5): the limit every call of the account
 * falls under, whichever key or dashboard session makes it, beside each key's own, and the
 * webhook URL its budgets' threshold crossings are posted to (§6.4). One identity-table item
 * beside the account's profile, `ACCOUNT#<id>` / `BUDGET`; its spend is kept on sharded counters
 * (budget-shards.ts), not here, so changing the limit never touches what was spent.
 */

export interface AccountBudgetSettings {
  readonly budget?: StoredBudget;
  /** Where threshold crossings of the account's and its keys' budgets are posted. */
  readonly webhookUrl?: string;
}

/** A change: a field absent stays as it is, null removes it. */
export interface AccountBudgetChange {
  readonly budget?: StoredBudget | null;
  readonly webhookUrl?: string | null;
}

function settingsOf(raw: Parameters<typeof fromItem>[0], accountId: string): AccountBudgetSettings {
  const item = fromItem<{ budget?: unknown; webhookUrl?: unknown }>(raw);
  return {
    ...(item.budget === undefined ? {} : { budget: storedBudgetOf(item.budget, `account ${accountId}`) }),
    ...(typeof item.webhookUrl === 'string' ? { webhookUrl: item.webhookUrl } : {}),
  };
}

const budgetKey = (accountId: string) => toItem({ pk: `ACCOUNT#${accountId}`, sk: 'BUDGET' });

export async function getAccountBudgetSettings(accountId: string): Promise<AccountBudgetSettings> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('identity'),
    Key: budgetKey(accountId),
    ConsistentRead: true,
  });
  if (!Item) return {};
  return settingsOf(Item, accountId);
}

/**
 * Applies `change` in one UpdateItem, so a change of the budget and one of the URL made at once
 * never undo each other. An item left with neither stays, read as no settings.
 */
export async function changeAccountBudgetSettings(
  accountId: string,
  change: AccountBudgetChange,
  now = new Date(),
): Promise<AccountBudgetSettings> {
  const sets = ['accountId = :accountId', 'updatedAt = :now'];
  const removes: string[] = [];
  const values: Record<string, unknown> = { ':accountId': accountId, ':now': now.toISOString() };
  for (const field of ['budget', 'webhookUrl'] as const) {
    const value = change[field];
    if (value === undefined) continue;
    if (value === null) removes.push(field);
    else {
      sets.push(`${field} = :${field}`);
      values[`:${field}`] = field === 'budget' ? { ...(value as StoredBudget) } : value;
    }
  }
  const { Attributes } = await dynamo().updateItem({
    TableName: tableName('identity'),
    Key: budgetKey(accountId),
    UpdateExpression: [`SET ${sets.join(', ')}`, ...(removes.length ? [`REMOVE ${removes.join(', ')}`] : [])].join(' '),
    ExpressionAttributeValues: toItem(values),
    ReturnValues: 'ALL_NEW',
  });
  return settingsOf(Attributes ?? {}, accountId);
}
