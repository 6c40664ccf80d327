import { BudgetHolds } from '../usage/budget-holds.js';
import { Meter } from '../usage/metering.js';
import { publishUsageMetrics } from '../observability/metrics.js';
import { search } from './web-search.js';
import { deploymentSearchDeps } from './search-deployment.js';
import { searchOptionsOf, type SearchRequestBody } from './search-request.js';
import { recordUsageBatched } from '../usage/usage-ledger.js';
import type { SearchAnswer } from './search-types.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';
import { envelope, type Reply } from '../http/reply.js';

/**
 * One search for one call: the core with the deployment's provider, its upstream call metered
 * after the response (failed calls too, at their cost of 0), the answer in docs/interface.md §2.8's shape.
 */
export async function answerSearch(call: AccountCall<SearchRequestBody>): Promise<Reply> {
  const meter = new Meter(
    { ...accountOf(call), requestId: call.requestId, route: call.route.id, at: call.startedAt },
    recordUsageBatched,
    publishUsageMetrics,
  );
  call.afterResponse.push(() => meter.flush());
  const holds = new BudgetHolds(budgetsOf(call), { defer: (task) => void call.afterResponse.push(task) });
  const answer = await search(
    call.body.query,
    searchOptionsOf(call.body),
    {
      signal: call.signal,
      admit: (bound) => holds.hold(bound),
      onAttempt: (attempt) => {
        meter.search(attempt);
        holds.settle(attempt.costMicroUsd);
      },
    },
    deploymentSearchDeps(call.config),
  );
  return envelope(searchBody(answer, call.requestId));
}

/** docs/interface.md §2.8, snake_case; `request_id` is the provider's id for the search, else the gateway's. */
function searchBody(answer: SearchAnswer, requestId: string) {
  return {
    query: answer.query,
    results: answer.results.map((result) => ({
      url: result.url,
      title: result.title,
      snippet: result.snippet,
      score: result.score,
      published_date: result.publishedDate,
      author: result.author,
      favicon: result.favicon,
    })),
    auto_prompt: answer.autoPrompt,
    cost_usd: answer.costMicroUsd / 1e6,
    request_id: answer.providerRequestId ?? requestId,
  };
}
