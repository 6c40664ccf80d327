import { unitCostMicroUsd, type UsageUnit } from '../catalog/unit-prices.js';
import { BudgetHolds } from '../usage/budget-holds.js';
import { Meter } from '../usage/metering.js';
import { publishUsageMetrics } from '../observability/metrics.js';
import type { AudioAttempt } from './audio-deployment.js';
import { recordUsageBatched } from '../usage/usage-ledger.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';

/** How a media call is metered and held to the caller's budget. */
export interface MediaMetering {
  /** Before the upstream call: reserves its greatest cost, or throws BudgetError (402). */
  admit(model: string, quantity: number): Promise<void>;
  /** Once per upstream call: its ledger entry, and its reservation settled to the entry's cost. */
  onAttempt(attempt: AudioAttempt): void;
}

/**
 * A media call's meter, flushed after the response like search's, and how one MiniMax
 * attempt becomes a ledger entry (model `minimax/<model>` priced per unit from the catalog)
 * and its metrics, as chat attempts' are. The caller's key budget reserves the call's list
 * price for its units before it is made (lambdas/usage/budget-holds.ts).
 */
export function mediaMetering(call: AccountCall<unknown>, unit: UsageUnit): MediaMetering {
  const meter = new Meter(
    { ...accountOf(call), requestId: call.requestId, route: call.route.id, at: call.startedAt },
    recordUsageBatched,
    publishUsageMetrics,
  );
  call.afterResponse.push(() => meter.flush());
  const holds = new BudgetHolds(budgetsOf(call), { defer: (task) => void call.afterResponse.push(task) });
  return {
    admit: (model, quantity) => holds.hold(unitCostMicroUsd(`minimax/${model}`, unit, quantity).microUsd),
    onAttempt: (attempt) => {
      meter.work({
        model: `minimax/${attempt.model}`,
        provider: 'minimax',
        unit,
        quantity: attempt.quantity,
        status: attempt.status,
        outcome: attempt.outcome,
        estimated: attempt.estimated,
      });
      holds.settle(meter.recorded.at(-1)!.costMicroUsd);
    },
  };
}
