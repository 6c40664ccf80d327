import { DIMENSION, METRIC, type MetricRecord } from './metric-names.js';

/**
 * A budget's spend reaching a threshold (lambdas/usage/budget-holds.ts), filed by whose budget
 * it is and which threshold: six series at most, whatever the number of keys and accounts (the
 * key or account itself is in the log line beside it, not a dimension).
 */
export function budgetThresholdMetrics(owner: 'key' | 'account', thresholdPercent: number): MetricRecord[] {
  return [
    {
      name: METRIC.budgetThresholds,
      unit: 'Count',
      value: 1,
      dimensions: { [DIMENSION.budgetOwner]: owner, [DIMENSION.budgetThreshold]: String(thresholdPercent) },
    },
  ];
}
