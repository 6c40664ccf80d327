import { logger } from '../config/logger.js';
import { budgetThresholdMetrics } from '../observability/budget-metrics.js';
import { publishMetrics } from '../observability/metrics.js';
import type { ScopedBudget } from '../store/budget-counters.js';

/** A budget's settled spend reaching a threshold (50, 80, 100%) in a period: told once, by the settlement that crossed it. */
export interface BudgetThresholdCrossing {
  readonly budget: ScopedBudget;
  readonly periodStart: string;
  readonly thresholdPercent: number;
  readonly spentMicroUsd: number;
}

/**
 * A deployment's word that a budget's spend reached a threshold: the metric (by whose budget and
 * which threshold, so an alarm can watch it) and a log line naming the budget, its period and
 * its spend, the event an operator's subscription filter can route (docs/observability.md).
 */
export function announceBudgetCrossing(crossing: BudgetThresholdCrossing): void {
  const { budget } = crossing;
  publishMetrics(budgetThresholdMetrics(budget.owner, crossing.thresholdPercent));
  logger.info('budget threshold crossed', {
    budgetOwner: budget.owner,
    budgetScope: budget.scope,
    period: budget.budget.period,
    periodStart: crossing.periodStart,
    thresholdPercent: crossing.thresholdPercent,
    limitUsd: budget.budget.limitMicroUsd / 1e6,
    spentUsd: crossing.spentMicroUsd / 1e6,
  });
}
