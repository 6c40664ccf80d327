import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayConfiguration } from '../config/configuration.js';
import { adapterFor } from '../providers/chat-adapters.js';
import { completeOnce, streamOnce } from '../providers/upstream-call.js';
import { publishUsageMetrics } from '../observability/metrics.js';
import { createPromptServiceClient } from './prompts/prompt-service-client.js';
import { announceBudgetCrossing } from '../usage/budget-notices.js';
import { recordUsageBatched } from '../usage/usage-ledger.js';
import type { ChatDeps } from './chat-core.js';
import { imageDescriber } from './image-descriptions.js';
import { LoadBalancer } from './load-balancer.js';
import { deploymentModerator } from './moderator.js';
import { endpointsFor } from './provider-credentials.js';
import { readAnswer, storeAnswer } from './response-cache.js';
import { tracedUpstream } from './traced-upstream.js';

const made = new WeakMap<GatewayConfiguration, ChatDeps>();

/**
 * The chat core's dependencies in a deployment: the callers' stored provider keys, the real
 * adapters and upstream calls (each with its span), the usage ledger and its metrics, the shared response cache, the configured
 * moderator, prompt service and image describer. Made once per configuration, so once per
 * instance: round-robin positions, latency averages and the prompt cache live as long as it.
 */
export function deploymentChatDeps(config: GatewayConfiguration): ChatDeps {
  let deps = made.get(config);
  if (!deps) made.set(config, (deps = chatDeps(config)));
  return deps;
}

function chatDeps(config: GatewayConfiguration): ChatDeps {
  return {
    endpointsFor: (accountId) => endpointsFor(accountId, config),
    adapterFor,
    balancer: new LoadBalancer(),
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    now: Date.now,
    upstream: tracedUpstream({ complete: completeOnce, stream: streamOnce }),
    recordUsage: recordUsageBatched,
    observeUsage: publishUsageMetrics,
    observeBudget: announceBudgetCrossing,
    readAnswer: (accountId, hash) => readAnswer(accountId, hash),
    storeAnswer: (accountId, hash, answer, ttlSeconds) => storeAnswer(accountId, hash, answer, ttlSeconds),
    moderator: () => deploymentModerator(config),
    fetchTemplate: createPromptServiceClient({ service: config.promptService }).fetchTemplate,
    describeImages: imageDescriber(config.imageDescriberModel),
  };
}
