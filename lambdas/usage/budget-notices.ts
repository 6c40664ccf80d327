import { logger } from '../config/logger.js';
import { budgetThresholdMetrics } from '../observability/budget-metrics.js';
import { publishMetrics } from '../observability/metrics.js';
import type { BudgetThresholdCrossing } from './budget-holds.js';

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
