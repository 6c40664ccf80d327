import type { BudgetCounter, BudgetPeriod, StoredBudget } from '../store/budget-counters.js';

/** A budget as answered (a key's or an account's): the limit and what its current period has used, in USD. */
export interface BudgetView {
  readonly limitUsd: number;
  readonly period: BudgetPeriod;
  /** Settled spend of the current period. */
  readonly spentUsd: number;
  /** Reservations still open: calls under way, counted against the limit until they settle. */
  readonly reservedUsd: number;
  /** When the current period ends (ISO 8601, UTC); null for `total`, which never does. */
  readonly resetsAt: string | null;
}

const MICRO_USD_PER_USD = 1_000_000;

/** A counter never written: a new budget, or a period nothing was spent in yet. */
export const NOTHING_USED: BudgetCounter = { committedMicroUsd: 0, spentMicroUsd: 0 };

export function budgetView(budget: StoredBudget, counter: BudgetCounter, resetsAt: Date | undefined): BudgetView {
  return {
    limitUsd: budget.limitMicroUsd / MICRO_USD_PER_USD,
    period: budget.period,
    spentUsd: counter.spentMicroUsd / MICRO_USD_PER_USD,
    // Committed is settled spend plus open reservations; never below the spend, but a counter
    // is answered as a limit's reader would take it, not trusted to be in step.
    reservedUsd: Math.max(0, counter.committedMicroUsd - counter.spentMicroUsd) / MICRO_USD_PER_USD,
    resetsAt: resetsAt?.toISOString() ?? null,
  };
}
