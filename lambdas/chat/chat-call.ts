import { chatCompletion, type ChatInput } from './chat-core.js';
import { deploymentChatDeps } from './chat-deployment.js';
import { checkChatImageHosts } from './chat-request-checks.js';
import type { GatewayChatRequest } from './chat-request.js';
import { parseGuardrails } from './guardrails/guardrail-pipeline.js';
import { cachePolicy } from './response-cache.js';
import { routingMetrics } from '../observability/call-metrics.js';
import { publishMetrics } from '../observability/metrics.js';
import { accountOf, budgetsOf, contentLogOf, type AccountCall } from '../http/call.js';
import { chatReply } from './chat-reply.js';
import { endedByTimeout } from '../http/middlewares/request-context.js';
import type { Reply } from '../http/reply.js';

/**
 * What the chat core takes from the call, every field but the request: whose it is, its
 * guardrails (the body's, else the header's), its cache policy, its signal and deadline, and
 * where after-response work goes. Chat completions and the Responses route feed it alike.
 */
export function chatInputOf(
  call: AccountCall<unknown>,
  bodyGuardrails: GatewayChatRequest['guardrails'],
): Omit<ChatInput, 'request'> {
  return {
    account: { ...accountOf(call), budgets: budgetsOf(call) },
    requestId: call.requestId,
    route: call.route.id,
    startedAt: call.startedAt,
    guardrails: parseGuardrails(bodyGuardrails, call.req.headers['x-guardrails']),
    cache: cachePolicy(call.req.headers),
    signal: call.signal,
    deadlineReached: () => endedByTimeout(call.signal),
    defer: (task) => void call.afterResponse.push(task),
    ...contentLogOf(call),
  };
}

/** One chat request through the chat core, fed from the call and answered as HTTP. */
export async function answerChat(call: AccountCall<unknown>, request: GatewayChatRequest): Promise<Reply> {
  await checkChatImageHosts(request);
  const result = await chatCompletion(
    { ...chatInputOf(call, request.guardrails), request },
    deploymentChatDeps(call.config),
  );
  const cache = result.kind === 'whole' ? result.cache : undefined;
  publishMetrics(routingMetrics(call.route.id, { ...result.routing, cache }));
  return chatReply(result, call.signal);
}
