import { setTimeout as sleep } from 'node:timers/promises';
import { adapterFor } from '../providers/chat-adapters.js';
import { completeOnce, streamOnce } from '../providers/upstream-call.js';
import { publishUsageMetrics } from '../observability/metrics.js';
import { defaultPromptServiceClient } from './prompts/prompt-service-client.js';
import { recordUsageBatched } from '../usage/usage-ledger.js';
import type { ChatDeps } from './chat-core.js';
import { describeImages } from './image-descriptions.js';
import { LoadBalancer } from './load-balancer.js';
import { deploymentModerator } from './moderator.js';
import { endpointsFor } from './provider-credentials.js';
import { readAnswer, storeAnswer } from './response-cache.js';

/**
 * The chat core's dependencies in a deployment: the callers' stored provider keys, the real
 * adapters, the usage ledger and its metrics, the shared response cache, the configured moderator. One per
 * instance: round-robin positions and latency averages live as long as the instance.
 */
export const deploymentChatDeps: ChatDeps = {
  endpointsFor,
  adapterFor,
  balancer: new LoadBalancer(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  now: Date.now,
  upstream: { complete: completeOnce, stream: streamOnce },
  recordUsage: recordUsageBatched,
  observeUsage: publishUsageMetrics,
  readAnswer: (accountId, hash) => readAnswer(accountId, hash),
  storeAnswer: (accountId, hash, answer, ttlSeconds) => storeAnswer(accountId, hash, answer, ttlSeconds),
  moderator: deploymentModerator,
  fetchTemplate: defaultPromptServiceClient.fetchTemplate,
  describeImages,
};
