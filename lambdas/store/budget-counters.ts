import { dynamo, fromItem, isConditionFailure, tableName, toItem } from './dynamo.js';
import { batchedGet } from './batch-reads.js';

/**
 * Budget counters (identity table): one item per budget and period, `BUDGET#<scope>` and
 * `<period start>` (docs/deployment.md, "Budgets"). Each holds, in integer micro-USD, what is
 * `committed` (the settled spend plus the reservations still open) and what is `spent` (settled
 * only). A reservation is one conditional ADD that succeeds only while the committed sum stays
 * within the limit, so any number of instances together never commit more than the limit: the
 * condition is evaluated by DynamoDB on the item, not by a reader that may be stale. Settling
 * moves a reservation to its metered cost in one unconditional ADD.
 *
 * A budget's counter gets at most two writes per request of its scope (a reservation and its
 * settlement); a key's rate limit (at most 10,000 a minute) keeps that under 340 writes a second,
 * a third of one partition's 1,000.
 */

/** A budget's period: a UTC calendar day or month, or no end at all. */
export type BudgetPeriod = 'day' | 'month' | 'total';
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['day', 'month', 'total'];

/** A budget as a key (or an account) keeps it: integer micro-USD, and its period. */
export interface StoredBudget {
  readonly limitMicroUsd: number;
  readonly period: BudgetPeriod;
}

/**
 * A stored budget as it was written (lambdas/identity/key-schemas.ts admits nothing else), or an
 * error naming `whose` it is. A budget in any other shape is not read as none: that would lift a
 * spending limit without a word, so its owner's calls fail loudly (500) until the item is repaired.
 */
export function storedBudgetOf(value: unknown, whose: string): StoredBudget {
  const budget = value as Partial<Record<keyof StoredBudget, unknown>> | null;
  const limit = budget?.limitMicroUsd;
  const period = BUDGET_PERIODS.find((known) => known === budget?.period);
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit <= 0 || period === undefined)
    throw new Error(`${whose}: its stored budget is malformed: ${JSON.stringify(value)}`);
  return { limitMicroUsd: limit, period };
}

/** Counters of ended periods are kept this long for reading back, then expire. */
const KEEP_ENDED_SECONDS = 400 * 86_400;

export interface BudgetCounterRef {
  /** Whose budget: `KEY#<keyId>` or `ACCOUNT#<accountId>`. */
  readonly scope: string;
  /** The period's start (`2026-11-27`, `2026-11`) or `total`. */
  readonly periodStart: string;
  /** Epoch seconds the counter may be deleted (TTL), for periods that end. */
  readonly expiresAt?: number;
}

/**
 * A reservation as a job record keeps it (lambdas/jobs/job-record.ts): the counter and the amount,
 * to be settled by whichever invocation ends the job.
 */
export interface HeldBudget extends BudgetCounterRef {
  readonly amountMicroUsd: number;
  /** The budget it was held against, to tell the thresholds its settlement crosses (absent on older records). */
  readonly budget?: ScopedBudget;
}

export interface BudgetCounter {
  /** Settled spend and open reservations, micro-USD. */
  readonly committedMicroUsd: number;
  /** Settled spend, micro-USD. */
  readonly spentMicroUsd: number;
}

/**
 * The counter of `scope`'s budget for the period `now` falls in, and when that period ends
 * (undefined for `total`).
 */
export function budgetCounterRef(
  scope: string,
  period: BudgetPeriod,
  now: Date,
): BudgetCounterRef & { readonly resetsAt?: Date } {
  if (period === 'total') return { scope, periodStart: 'total' };
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const resetsAt =
    period === 'day' ? new Date(Date.UTC(year, month, now.getUTCDate() + 1)) : new Date(Date.UTC(year, month + 1, 1));
  const iso = now.toISOString();
  return {
    scope,
    periodStart: period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7),
    expiresAt: Math.floor(resetsAt.getTime() / 1000) + KEEP_ENDED_SECONDS,
    resetsAt,
  };
}

/** The counter scope of a key's budget and of an account's. */
export const keyBudgetScope = (keyId: string) => `KEY#${keyId}`;
export const accountBudgetScope = (accountId: string) => `ACCOUNT#${accountId}`;

/** A budget a call falls under, with the counter it is kept on (lambdas/usage/budget-holds.ts). */
export interface ScopedBudget {
  /** Whose budget, as a refusal names it. */
  readonly owner: 'key' | 'account';
  /** The counter's scope: keyBudgetScope or accountBudgetScope. */
  readonly scope: string;
  readonly budget: StoredBudget;
  /** How many counters it is kept on (lambdas/store/budget-shards.ts); absent: one, at `scope`. */
  readonly shards?: number;
  /** The account it belongs to (a key's too), as its crossings name it; absent on older job records. */
  readonly accountId?: string;
  /** The account's budget webhook as read with the budget (docs/interface.md §6.4); absent: none. */
  readonly webhookUrl?: string;
}

/** `budgets` as their crossings are told: the account's, and where its budget webhook posts them. */
export function notifiedBudgets(
  budgets: readonly ScopedBudget[],
  accountId: string,
  webhookUrl: string | undefined,
): ScopedBudget[] {
  return budgets.map((budget) => ({ ...budget, accountId, ...(webhookUrl ? { webhookUrl } : {}) }));
}

/** The budgets a key's calls fall under: the key's own, when it has one. */
export function keyBudgets(keyId: string | undefined, budget: StoredBudget | undefined): ScopedBudget[] {
  return keyId !== undefined && budget !== undefined ? [{ owner: 'key', scope: keyBudgetScope(keyId), budget }] : [];
}

const counterKey = (ref: BudgetCounterRef) => toItem({ pk: `BUDGET#${ref.scope}`, sk: ref.periodStart });

/**
 * Reserves `amountMicroUsd` against `limitMicroUsd`: true when it fits beside everything
 * committed so far (and is now committed), false when it does not (nothing written).
 */
export async function reserveBudget(
  ref: BudgetCounterRef,
  limitMicroUsd: number,
  amountMicroUsd: number,
): Promise<boolean> {
  if (amountMicroUsd > limitMicroUsd) return false;
  try {
    await dynamo().updateItem({
      TableName: tableName('identity'),
      Key: counterKey(ref),
      UpdateExpression: `ADD committed :amount${ref.expiresAt === undefined ? '' : ' SET expiresAt = if_not_exists(expiresAt, :expires)'}`,
      ConditionExpression: 'attribute_not_exists(committed) OR committed <= :room',
      ExpressionAttributeValues: toItem({
        ':amount': amountMicroUsd,
        ':room': limitMicroUsd - amountMicroUsd,
        ...(ref.expiresAt === undefined ? {} : { ':expires': ref.expiresAt }),
      }),
    });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Settles a reservation of `reservedMicroUsd` to its metered `costMicroUsd` (0 releases it):
 * the difference leaves (or joins) the committed sum and the cost joins the spend. Returns the
 * counter as the settlement left it. Not
 * conditional: a settlement always applies, even when it takes the counter past the limit (a
 * call that cost more than its reservation), so the counter never under-counts.
 */
export async function settleBudget(
  ref: BudgetCounterRef,
  reservedMicroUsd: number,
  costMicroUsd: number,
): Promise<BudgetCounter> {
  const { Attributes } = await dynamo().updateItem({
    TableName: tableName('identity'),
    Key: counterKey(ref),
    UpdateExpression: 'ADD committed :delta, spent :cost',
    ExpressionAttributeValues: toItem({ ':delta': costMicroUsd - reservedMicroUsd, ':cost': costMicroUsd }),
    ReturnValues: 'UPDATED_NEW',
  });
  const after = Attributes ? fromItem<{ committed?: number; spent?: number }>(Attributes) : {};
  return { committedMicroUsd: after.committed ?? 0, spentMicroUsd: after.spent ?? 0 };
}

/** The counters of `refs`, in their order; a counter never written reads as zero. */
export async function readBudgetCounters(refs: readonly BudgetCounterRef[]): Promise<BudgetCounter[]> {
  const table = tableName('identity');
  const items = await Promise.all(refs.map((ref) => batchedGet(table, counterKey(ref))));
  return items.map((item) => {
    const counter = item ? fromItem<{ committed?: number; spent?: number }>(item) : {};
    return { committedMicroUsd: counter.committed ?? 0, spentMicroUsd: counter.spent ?? 0 };
  });
}
