import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MeterObserver } from '../gateway/metering.js';
import { METRICS_NAMESPACE, type MetricRecord } from './metric-names.js';
import { usageMetrics } from './usage-metrics.js';

/**
 * Metrics as CloudWatch embedded metric format (EMF) lines on stdout; CloudWatch Logs turns
 * them into metrics, no API call on the request path. POWERTOOLS_METRICS_DISABLED=true (the
 * local runtime's default) keeps them off the console.
 */
export const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'ai-gateway' });

/**
 * Writes records at once, one EMF line per dimension set (an EMF line shares its dimensions
 * across its metrics). Synchronous, so concurrent calls of the local runtime never interleave
 * within a line; nothing is left buffered when an invocation ends.
 */
export function publishMetrics(records: readonly MetricRecord[]): void {
  for (const group of byDimensions(records)) {
    metrics.addDimensions({ ...group[0]!.dimensions });
    for (const record of group) metrics.addMetric(record.name, record.unit, record.value);
    metrics.publishStoredMetrics();
  }
}

function byDimensions(records: readonly MetricRecord[]): MetricRecord[][] {
  const groups = new Map<string, MetricRecord[]>();
  for (const record of records) {
    const key = JSON.stringify(Object.entries(record.dimensions).sort(([a], [b]) => a.localeCompare(b)));
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return [...groups.values()];
}

/** The chat core's meter observer in a deployment: each metered entry becomes its metrics. */
export const publishUsageMetrics: MeterObserver = (entry, timing) => publishMetrics(usageMetrics(entry, timing));
