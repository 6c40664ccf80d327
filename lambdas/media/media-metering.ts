import type { UsageUnit } from '../catalog/unit-prices.js';
import { Meter } from '../usage/metering.js';
import { publishUsageMetrics } from '../observability/metrics.js';
import type { AudioAttempt } from './audio-deployment.js';
import { recordUsageBatched } from '../usage/usage-ledger.js';
import { accountOf, type AccountCall } from '../http/call.js';

/**
 * A media call's meter, flushed after the response like search's, and how one MiniMax
 * attempt becomes a ledger entry (model `minimax/<model>` priced per unit from the catalog)
 * and its metrics, as chat attempts' are.
 */
export function mediaMeter(call: AccountCall<unknown>, unit: UsageUnit): (attempt: AudioAttempt) => void {
  const meter = new Meter(
    { ...accountOf(call), requestId: call.requestId, route: call.route.id, at: call.startedAt },
    recordUsageBatched,
    publishUsageMetrics,
  );
  call.afterResponse.push(() => meter.flush());
  return (attempt) =>
    meter.work({
      model: `minimax/${attempt.model}`,
      provider: 'minimax',
      unit,
      quantity: attempt.quantity,
      status: attempt.status,
      outcome: attempt.outcome,
      estimated: attempt.estimated,
    });
}
