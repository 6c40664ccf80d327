import { DEFAULT_SEARCH_PROVIDER } from '../catalog/model-catalog.js';
import { BudgetHolds } from '../usage/budget-holds.js';
import { Meter, type UsageSink } from '../usage/metering.js';
import { search, type SearchDeps } from '../search/web-search.js';
import type { ArenaCallContext } from './arena-chat.js';
import { settledWork } from './settled-work.js';
import { TOOL_RESULTS, type AgentSearch } from './web-search-tool.js';

/** One search may take this long before the model is told it failed. */
export const SEARCH_TOOL_TIMEOUT_MS = 10_000;

export interface ArenaSearchDeps {
  readonly search: SearchDeps;
  readonly recordUsage: UsageSink;
  now(): number;
}

/** Whether the deployment has a search provider: without one, agents are offered no search. */
export async function searchAvailable(deps: SearchDeps): Promise<boolean> {
  return (await deps.endpoint(DEFAULT_SEARCH_PROVIDER)) !== undefined;
}

/**
 * The search core for agents' web_search calls: each call its own ledger request id under the
 * session (`<session>/r<round>/<agent>/search.<n>`), tagged with the session, round and agent,
 * written once the call has settled (a call the caller's leaving cut short included).
 */
export function arenaSearch(context: ArenaCallContext, deps: ArenaSearchDeps): AgentSearch {
  const counts = new Map<string, number>();
  return async (query, turn) => {
    const key = `${turn.round}/${turn.agent}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const meter = new Meter(
      {
        ...context.account,
        requestId: `${context.sessionId}/r${turn.round}/${turn.agent}/search.${n}`,
        route: context.route,
        at: new Date(deps.now()),
        tags: { sessionId: context.sessionId, round: turn.round, agent: turn.agent, purpose: 'search' },
      },
      deps.recordUsage,
    );
    const work = settledWork(context.defer);
    work.defer(() => meter.flush());
    // The session owner's budgets hold each search as they hold each turn (lambdas/usage/budget-holds.ts).
    const holds = new BudgetHolds(context.account.budgets ?? [], {
      now: () => new Date(deps.now()),
      defer: work.defer,
    });
    try {
      return await search(
        query,
        { numResults: TOOL_RESULTS, type: 'auto', includeSummary: true },
        {
          signal: turn.signal,
          timeoutMs: SEARCH_TOOL_TIMEOUT_MS,
          admit: (bound) => holds.hold(bound),
          onAttempt: (attempt) => {
            meter.search(attempt);
            holds.settle(attempt.costMicroUsd);
          },
        },
        deps.search,
      );
    } finally {
      work.settle();
    }
  };
}
