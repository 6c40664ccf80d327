import { DIMENSION, METRIC, type MetricRecord } from './metric-names.js';

/**
 * A call's own figures, filed by route: one request, its status class, its duration. The
 * duration is also filed under no route, for one latency alarm over every route.
 */
export function callMetrics(route: string, status: number, durationMs: number): MetricRecord[] {
  const dimensions = { [DIMENSION.route]: route };
  const records: MetricRecord[] = [
    { name: METRIC.requests, unit: 'Count', value: 1, dimensions },
    { name: METRIC.clientErrors, unit: 'Count', value: status >= 400 && status < 500 ? 1 : 0, dimensions },
    { name: METRIC.serverErrors, unit: 'Count', value: status >= 500 ? 1 : 0, dimensions },
    { name: METRIC.requestDuration, unit: 'Milliseconds', value: durationMs, dimensions },
    { name: METRIC.requestDuration, unit: 'Milliseconds', value: durationMs, dimensions: {} },
  ];
  // Only when it happens: a successful call's line stays as short as it was.
  if (status === 401) records.push({ name: METRIC.authFailures, unit: 'Count', value: 1, dimensions: {} });
  return records;
}

/** What routing did for one answered chat request (the core's ChatRouting and cache status). */
export interface RoutingFigures {
  readonly retries: number;
  readonly fallbackFrom?: string;
  readonly cache?: 'HIT' | 'MISS' | 'BYPASS';
}

/** Retries, fallbacks and cache misses of an answered chat request (hits come from the meter). */
export function routingMetrics(route: string, routing: RoutingFigures): MetricRecord[] {
  const dimensions = { [DIMENSION.route]: route };
  const records: MetricRecord[] = [
    { name: METRIC.retries, unit: 'Count', value: routing.retries, dimensions },
    { name: METRIC.fallbacks, unit: 'Count', value: routing.fallbackFrom ? 1 : 0, dimensions },
  ];
  if (routing.cache === 'MISS') records.push({ name: METRIC.cacheMisses, unit: 'Count', value: 1, dimensions });
  return records;
}
