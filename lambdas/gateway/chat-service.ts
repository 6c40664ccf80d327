import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayCall } from '../http/call.js';
import { bare, sse, type Reply } from '../http/reply.js';
import type { AccountPrincipal } from '../identity/principal.js';
import { adapterFor } from '../providers/chat/adapters.js';
import { platformEndpoint } from '../providers/provider-config.js';
import { endpointsFor } from './provider-credentials.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, type GatewayChatRequest } from './chat-request.js';
import { chatStreamFrames } from './chat-stream.js';
import { LoadBalancer } from './load-balancer.js';
import { Meter } from './metering.js';
import { routeCompletion, routeStream, type RouterDeps, type RoutingOutcome } from './router.js';
import { planTargets, type Target } from './targets.js';
import { upstreamRequest } from './upstream-request.js';
import { describeImages, hasImages } from './image-descriptions.js';
import { applyPrompt } from './prompts/apply-prompt.js';
import { defaultPromptServiceClient } from '../providers/prompts/prompt-service-client.js';
import { cacheKey } from './cache-key.js';
import { cachePolicy, readAnswer, storeAnswer } from './response-cache.js';
import type { ChatCompletion, ChatMessage } from '../providers/chat/types.js';

/** Per instance: round-robin positions and latency averages live as long as the instance. */
const balancer = new LoadBalancer();

const defaultDeps: RouterDeps = {
  endpoint: platformEndpoint,
  adapterFor,
  balancer,
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  onAttempt: () => undefined,
};

/** POST /api/v1/chat/completions: route, call, stream or answer, and meter every attempt. */
export async function chatCompletion(call: GatewayCall<GatewayChatRequest>, deps: RouterDeps = defaultDeps): Promise<Reply> {
  // A managed prompt's rendered turns come first; the cache key then covers its content too.
  const messages = await applyPrompt(call.body, { fetchTemplate: defaultPromptServiceClient.fetchTemplate }, call.signal);
  const request = { ...call.body, messages };
  const principal = call.principal as AccountPrincipal;
  const meter = new Meter({
    requestId: call.requestId,
    accountId: principal.accountId,
    keyId: 'keyId' in principal ? principal.keyId : undefined,
    route: call.route.id,
    at: call.startedAt,
  });
  call.afterResponse.push(() => meter.flush());
  const meteredDeps: RouterDeps = {
    ...deps,
    endpoint: deps === defaultDeps ? endpointsFor(principal.accountId) : deps.endpoint,
    onAttempt: (attempt) => meter.attempt(attempt),
  };
  // Images go as they are to vision models; the others get descriptions, made once per request.
  let describedMessages: Promise<ChatMessage[]> | undefined;
  const messagesFor = (target: Target) => {
    if (target.family.vision || !hasImages(request.messages)) return request.messages;
    describedMessages ??= describeImages(request.messages, { accountId: principal.accountId, deps: meteredDeps, signal: call.signal });
    return describedMessages;
  };
  const routing = {
    targets: planTargets(request, deps.balancer),
    upstreamRequest: async (target: Target) => upstreamRequest({ ...request, messages: await messagesFor(target) }, target.model),
    retries: request.retries ?? DEFAULT_RETRIES,
    timeoutMs: request.timeout ?? DEFAULT_TIMEOUT_MS,
    signal: call.signal,
  };
  // Validated for streams too, though only non-streaming answers are cached.
  const policy = cachePolicy(call.req.headers);

  if (request.stream) {
    const routed = await routeStream(routing, meteredDeps);
    const frames = chatStreamFrames(
      routed,
      {
        id: `chatcmpl-${call.requestId}`,
        created: Math.floor(call.startedAt.getTime() / 1000),
        includeUsage: request.stream_options?.include_usage === true,
        messages: request.messages,
      },
      meter,
    );
    return sse(frames, routingHeaders(routed));
  }

  const hash = cacheKey(request, routing.targets[0]!.model, request.guardrails?.enabled ?? []);
  const id = `chatcmpl-${call.requestId}`;
  if (policy.read) {
    const hit = await readAnswer(principal.accountId, hash);
    if (hit) {
      const cached = JSON.parse(hit.body) as ChatCompletion;
      meter.cacheHit(hit.model, hit.provider, cached.usage);
      return bare({ ...cached, id }, 200, { 'X-Cache': 'HIT', 'X-Model-Used': hit.model, 'X-Retry-Count': '0' });
    }
  }

  const routed = await routeCompletion(routing, meteredDeps);
  const completion = { ...routed.completion, id, model: routed.target.model };
  // Tool calls depend on the caller's tools' live state: never replayed from cache.
  const bypass = completion.choices.some((choice) => (choice.message.tool_calls?.length ?? 0) > 0);
  if (!bypass) {
    call.afterResponse.push(async () => {
      await storeAnswer(
        principal.accountId,
        hash,
        { body: JSON.stringify(completion), model: routed.target.model, provider: routed.target.provider },
        policy.ttlSeconds,
      );
    });
  }
  return bare(completion, 200, { ...routingHeaders(routed), 'X-Cache': bypass ? 'BYPASS' : 'MISS' });
}

function routingHeaders(outcome: RoutingOutcome): Record<string, string> {
  return {
    'X-Model-Used': outcome.target.model,
    'X-Retry-Count': String(outcome.retries),
    ...(outcome.fallbackFrom ? { 'X-Fallback-From': outcome.fallbackFrom } : {}),
  };
}
