import type { JobEnd } from './job-driver.js';
import type { JobRecord } from './job-record.js';
import type { UsageEntry } from '../store/usage-items.js';
import { DIMENSION, METRIC, type MetricRecord } from '../observability/metric-names.js';
import { boundedModel } from '../observability/usage-metrics.js';

/**
 * The metrics of a job that just ended, published once (by whoever ended it): one count by kind
 * and outcome (a video MiniMax refused, a prediction FASHN failed: no state machine execution
 * fails for those, so its alarm never sees them), the time from submission to end, and the cost
 * the job was metered at, filed as the chat core files it. No upstream request or error counts:
 * a job's end is not an upstream attempt. Pure: the caller publishes them.
 */
export function jobMetrics(job: JobRecord, end: JobEnd, at: Date, entry?: UsageEntry): MetricRecord[] {
  const byKind = { [DIMENSION.jobKind]: job.kind };
  const records: MetricRecord[] = [
    { name: METRIC.jobsEnded, unit: 'Count', value: 1, dimensions: { ...byKind, [DIMENSION.jobPhase]: end.phase } },
    {
      name: METRIC.jobDuration,
      unit: 'Seconds',
      value: Math.max(0, at.getTime() - Date.parse(job.createdAt)) / 1000,
      dimensions: byKind,
    },
  ];
  if (entry && entry.costMicroUsd > 0) {
    records.push({
      name: METRIC.costMicroUsd,
      unit: 'None',
      value: entry.costMicroUsd,
      dimensions: { [DIMENSION.provider]: entry.provider ?? 'unknown', [DIMENSION.model]: boundedModel(entry.model) },
    });
  }
  return records;
}
