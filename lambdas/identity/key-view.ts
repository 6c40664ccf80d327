import type { ApiKeyRecord } from '../store/api-keys.js';
import { budgetCounterRef, keyBudgetScope, readBudgetCounters, type StoredBudget } from '../store/budget-counters.js';
import { budgetView, NOTHING_USED, type BudgetView } from './budget-view.js';
import type { IssuedKey } from './issue-key.js';

/** How keys are answered: by the listing, by an update, and once, in full, by their creation. */

export const KEY_SHOWN_ONCE = 'Store this key now: it is shown only once and cannot be recovered.';

/** The counter of the key's budget for the period `now` falls in, and when that period ends. */
const currentPeriod = (keyId: string, budget: StoredBudget, now: Date) =>
  budgetCounterRef(keyBudgetScope(keyId), budget.period, now);

/** How a key appears in listings: metadata and a masked form, never the secret. */
function describeKey(record: ApiKeyRecord, budget: BudgetView | null) {
  return {
    id: record.keyId,
    name: record.name,
    type: record.type,
    maskedKey: `${record.type === 'secret' ? 'sk_' : 'pk_'}${record.keyId}_••••`,
    createdAt: record.createdAt,
    enabled: record.enabled,
    rateLimit: record.rateLimit,
    ...(record.type === 'publishable' ? { allowedOrigins: record.allowedOrigins } : {}),
    budget,
  };
}

/**
 * Keys as listings show them, each budget with its current period's spend. The budgeted keys'
 * counters are read together (one BatchGetItem, lambdas/store/batch-reads.ts); the period is
 * the one `now` falls in, the same for the counter read and the `resetsAt` answered.
 */
export async function describeKeys(records: readonly ApiKeyRecord[], now = new Date()) {
  const budgeted = records.flatMap(({ keyId, budget }) =>
    budget ? [{ keyId, budget, period: currentPeriod(keyId, budget, now) }] : [],
  );
  const counters = await readBudgetCounters(budgeted.map(({ period }) => period));
  const views = new Map(
    budgeted.map(({ keyId, budget, period }, i) => [keyId, budgetView(budget, counters[i]!, period.resetsAt)]),
  );
  return records.map((record) => describeKey(record, views.get(record.keyId) ?? null));
}

/** What a key's update answers: the key as changed, as listings show it. */
export async function describeUpdatedKey(record: ApiKeyRecord, now = new Date()) {
  const [view] = await describeKeys([record], now);
  return { ...view!, keyId: record.keyId, updated: true };
}

/**
 * What key creation answers, from the dashboard and the admin API alike: the listing's fields,
 * the owner, and the full key this once. A new key has spent nothing, so no counter is read.
 */
export function describeIssuedKey({ record, key }: IssuedKey, now = new Date()) {
  const { budget: stored, keyId } = record;
  const budget = stored ? budgetView(stored, NOTHING_USED, currentPeriod(keyId, stored, now).resetsAt) : null;
  return {
    ...describeKey(record, budget),
    keyId: record.keyId,
    accountId: record.accountId,
    key,
    message: KEY_SHOWN_ONCE,
  };
}
