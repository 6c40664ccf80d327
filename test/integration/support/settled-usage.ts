import { call } from './http.js';
import { until } from './poll.js';

/**
 * A usage report (`GET` of `url`) once it counts at least `requests` requests: reports read the
 * totals the aggregator derives from the ledger off the request path, about a second after the
 * entries land. Returns the last answer when the polls have not seen that many.
 */
export function settledUsage(url: string, headers: Record<string, string>, requests: number) {
  return until(
    () => call(url, { headers }),
    (answer) => answer.status !== 200 || answer.body.data.totalRequests >= requests,
  );
}
