import { priceOf, unitPriceOf } from '../catalog/model-catalog.js';
import type { UsageEntry } from '../store/usage-items.js';
import { DIMENSION, METRIC, type MetricRecord } from './metric-names.js';

/** Outcomes that are no fault of the upstream's: answered, served from cache, or the caller left. */
const NOT_UPSTREAM_ERRORS = new Set(['ok', 'cache_hit', 'client_closed']);

/** How long an upstream attempt took; ledger entries do not keep it, metrics do. */
export interface AttemptTiming {
  readonly durationMs: number;
  /** Streams that answered: until the first chunk of substance. */
  readonly firstTokenMs?: number;
}

/**
 * Sees every entry as it is metered (with the attempt's timing, for upstream attempts): the
 * deployment turns them into metrics; the core only calls it.
 */
export type MeterObserver = (entry: UsageEntry, timing?: AttemptTiming) => void;

/**
 * The metrics of one metered entry: a cache hit counts as one; an upstream attempt as a
 * request (and an error unless it answered or the caller left), its duration and time to first
 * chunk, its tokens and cost. Pure: the caller publishes them.
 */
export function usageMetrics(entry: UsageEntry, timing?: AttemptTiming): MetricRecord[] {
  const byModel = { [DIMENSION.provider]: entry.provider ?? 'unknown', [DIMENSION.model]: boundedModel(entry.model) };
  const byProvider = { [DIMENSION.provider]: byModel[DIMENSION.provider] };
  const records: MetricRecord[] = [];
  const add = (name: string, unit: MetricRecord['unit'], value: number, dimensions: Record<string, string>) =>
    records.push({ name, unit, value, dimensions });

  if (entry.cached) {
    add(METRIC.cacheHits, 'Count', 1, { [DIMENSION.route]: entry.route });
  } else {
    add(METRIC.upstreamRequests, 'Count', 1, byProvider);
    add(METRIC.upstreamErrors, 'Count', NOT_UPSTREAM_ERRORS.has(entry.outcome ?? 'ok') ? 0 : 1, byProvider);
  }
  if (timing) add(METRIC.operationDuration, 'Seconds', timing.durationMs / 1000, byModel);
  if (timing?.firstTokenMs !== undefined) {
    add(METRIC.timeToFirstChunk, 'Seconds', timing.firstTokenMs / 1000, byModel);
  }
  if (entry.promptTokens > 0 || entry.completionTokens > 0) {
    add(METRIC.tokenUsage, 'Count', entry.promptTokens, { ...byModel, [DIMENSION.tokenType]: 'input' });
    add(METRIC.tokenUsage, 'Count', entry.completionTokens, { ...byModel, [DIMENSION.tokenType]: 'output' });
  }
  if (entry.costMicroUsd > 0) add(METRIC.costMicroUsd, 'None', entry.costMicroUsd, byModel);
  return records;
}

/**
 * Catalog model ids only: each distinct dimension value is a metric CloudWatch bills for, so a
 * model the catalog cannot price (a caller's string, in principle) is filed as `other`.
 */
export function boundedModel(model: string): string {
  return priceOf(model) || unitPriceOf(model) ? model : 'other';
}
