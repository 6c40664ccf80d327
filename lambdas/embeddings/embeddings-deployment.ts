import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayConfiguration } from '../config/configuration.js';
import { endpointsFor } from '../chat/provider-credentials.js';
import { readAnswer, storeAnswer } from '../chat/response-cache.js';
import { publishUsageMetrics } from '../observability/metrics.js';
import { send } from '../providers/http-transport.js';
import { announceBudgetCrossing } from '../usage/budget-notices.js';
import { DYNAMODB_BUDGET_STORE } from '../usage/budget-holds.js';
import { recordUsageBatched } from '../usage/usage-ledger.js';
import type { EmbeddingsDeps } from './embeddings-core.js';

/**
 * The embeddings core's dependencies in a deployment, as chat's: the caller's stored provider
 * keys before the platform's, real HTTP, the shared response cache, the usage ledger and the
 * budgets' DynamoDB counters.
 */
export function deploymentEmbeddingsDeps(config: GatewayConfiguration): EmbeddingsDeps {
  return {
    endpointsFor: (accountId) => endpointsFor(accountId, config),
    send,
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    readAnswer: (accountId, hash) => readAnswer(accountId, hash),
    storeAnswer: (accountId, hash, answer, ttlSeconds) => storeAnswer(accountId, hash, answer, ttlSeconds),
    recordUsage: recordUsageBatched,
    observeUsage: publishUsageMetrics,
    budgetStore: DYNAMODB_BUDGET_STORE,
    observeBudget: announceBudgetCrossing,
    now: () => new Date(),
  };
}
