import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayCall } from '../http/call.js';
import { bare, sse, type Reply } from '../http/reply.js';
import type { AccountPrincipal } from '../identity/principal.js';
import { adapterFor } from '../providers/chat/adapters.js';
import type { ChatCompletion, ChatMessage } from '../providers/chat/types.js';
import { platformEndpoint } from '../providers/provider-config.js';
import { defaultPromptServiceClient } from '../providers/prompts/prompt-service-client.js';
import { cacheKey } from './cache-key.js';
import { checkChatRequest } from './chat-request-checks.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, type GatewayChatRequest } from './chat-request.js';
import { chatStreamFrames } from './chat-stream.js';
import {
  answerStreamGuard,
  guardAnswer,
  guardRequest,
  parseGuardrails,
  statusHeader,
  type GuardrailName,
  type GuardrailStatus,
} from './guardrails/index.js';
import { describeImages, hasImages } from './image-descriptions.js';
import { LoadBalancer } from './load-balancer.js';
import { Meter } from './metering.js';
import { deploymentModerator } from './moderator.js';
import { applyPrompt } from './prompts/apply-prompt.js';
import { endpointsFor } from './provider-credentials.js';
import { cachePolicy, readAnswer, storeAnswer, type CachePolicy } from './response-cache.js';
import { routeCompletion, routeStream, type RouteOptions, type RouterDeps, type RoutingOutcome } from './router.js';
import { planTargets, type Target } from './targets.js';
import { upstreamRequest } from './upstream-request.js';

/** Per instance: round-robin positions and latency averages live as long as the instance. */
const balancer = new LoadBalancer();

const defaultDeps: RouterDeps = {
  endpoint: platformEndpoint,
  adapterFor,
  balancer,
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
  onAttempt: () => undefined,
};

/** Everything one chat request needs once it is prepared. */
interface ChatPlan {
  readonly call: GatewayCall<GatewayChatRequest>;
  readonly request: GatewayChatRequest;
  readonly accountId: string;
  readonly meter: Meter;
  readonly deps: RouterDeps;
  readonly routing: RouteOptions;
  readonly guardrails: readonly GuardrailName[];
  readonly requestStatuses: readonly GuardrailStatus[];
  readonly cache: CachePolicy;
}

/** POST /api/v1/chat/completions: prepare, then stream or answer; every attempt is metered. */
export async function chatCompletion(
  call: GatewayCall<GatewayChatRequest>,
  deps: RouterDeps = defaultDeps,
): Promise<Reply> {
  const plan = await prepare(call, deps);
  return plan.request.stream ? streamed(plan) : whole(plan);
}

/**
 * The managed prompt's turns first, then the request guardrails (PII is redacted before
 * anything leaves), then the attempt plan. Images are described lazily, only for a target
 * without vision that is actually tried.
 */
async function prepare(call: GatewayCall<GatewayChatRequest>, deps: RouterDeps): Promise<ChatPlan> {
  checkChatRequest(call.body);
  const guardrails = parseGuardrails(call.body.guardrails, call.req.headers['x-guardrails']);
  const cache = cachePolicy(call.req.headers);
  const prompted = await applyPrompt(
    call.body,
    { fetchTemplate: defaultPromptServiceClient.fetchTemplate },
    call.signal,
  );
  const unguarded = upstreamRequest({ ...call.body, messages: prompted }, call.body.model);
  // The moderator is only built (and its configuration checked) when a guardrail asks for it.
  const guarded = guardrails.length
    ? await guardRequest(unguarded, guardrails, deploymentModerator(), call.signal)
    : { request: unguarded, statuses: [] };
  const request: GatewayChatRequest = { ...call.body, messages: guarded.request.messages };
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
  let described: Promise<ChatMessage[]> | undefined;
  const messagesFor = (target: Target) => {
    if (target.family.vision || !hasImages(request.messages)) return request.messages;
    described ??= describeImages(request.messages, {
      accountId: principal.accountId,
      deps: meteredDeps,
      signal: call.signal,
    });
    return described;
  };
  const routing: RouteOptions = {
    targets: planTargets(request, deps.balancer),
    upstreamRequest: async (target) =>
      upstreamRequest({ ...request, messages: await messagesFor(target) }, target.model),
    retries: request.retries ?? DEFAULT_RETRIES,
    timeoutMs: request.timeout ?? DEFAULT_TIMEOUT_MS,
    signal: call.signal,
  };
  return {
    call,
    request,
    accountId: principal.accountId,
    meter,
    deps: meteredDeps,
    routing,
    guardrails,
    requestStatuses: guarded.statuses,
    cache,
  };
}

/** Streams are never cached; answer guardrails run on the chunks as they pass. */
async function streamed(plan: ChatPlan): Promise<Reply> {
  const { call, request } = plan;
  const routed = await routeStream(plan.routing, plan.deps);
  const guard = plan.guardrails.length
    ? answerStreamGuard(plan.guardrails, upstreamRequest(request, routed.target.model), deploymentModerator(), {
        signal: call.signal,
        requestStatuses: plan.requestStatuses,
      })
    : undefined;
  const frames = chatStreamFrames(
    routed,
    {
      id: `chatcmpl-${call.requestId}`,
      created: Math.floor(call.startedAt.getTime() / 1000),
      includeUsage: request.stream_options?.include_usage === true,
      messages: request.messages,
      guard,
      signal: call.signal,
    },
    plan.meter,
  );
  // Headers go before the answer exists: they carry what is known, the request's outcomes.
  return sse(frames, { ...routingHeaders(routed), ...guardrailHeader(plan.requestStatuses) });
}

/** Non-streaming: the cache first, then the routed answer, guarded, cached unless it calls tools. */
async function whole(plan: ChatPlan): Promise<Reply> {
  const { call, request, accountId } = plan;
  const id = `chatcmpl-${call.requestId}`;
  const hash = cacheKey(request, plan.routing.targets[0]!.model, plan.guardrails);
  if (plan.cache.read) {
    const hit = await readAnswer(accountId, hash);
    if (hit) {
      const cached = JSON.parse(hit.body) as ChatCompletion;
      plan.meter.cacheHit(hit.model, hit.provider, cached.usage);
      const headers = { 'X-Cache': 'HIT', 'X-Model-Used': hit.model, 'X-Retry-Count': '0' };
      return bare(
        { ...cached, id },
        200,
        hit.guardrailStatus ? { ...headers, 'X-Guardrail-Status': hit.guardrailStatus } : headers,
      );
    }
  }

  const routed = await routeCompletion(plan.routing, plan.deps);
  let completion: ChatCompletion = { ...routed.completion, id, model: routed.target.model };
  let statuses = plan.requestStatuses;
  if (plan.guardrails.length) {
    const guarded = await guardAnswer(
      completion,
      plan.guardrails,
      upstreamRequest(request, routed.target.model),
      deploymentModerator(),
      call.signal,
      plan.requestStatuses,
    );
    completion = guarded.completion;
    statuses = guarded.statuses;
  }
  // Tool calls depend on the caller's tools' live state: never replayed from cache.
  const bypass = completion.choices.some((choice) => (choice.message.tool_calls?.length ?? 0) > 0);
  if (!bypass) {
    const stored = {
      body: JSON.stringify(completion),
      model: routed.target.model,
      provider: routed.target.provider,
      guardrailStatus: statusHeader(statuses),
    };
    call.afterResponse.push(async () => void (await storeAnswer(accountId, hash, stored, plan.cache.ttlSeconds)));
  }
  return bare(completion, 200, {
    ...routingHeaders(routed),
    'X-Cache': bypass ? 'BYPASS' : 'MISS',
    ...guardrailHeader(statuses),
  });
}

function routingHeaders(outcome: RoutingOutcome): Record<string, string> {
  return {
    'X-Model-Used': outcome.target.model,
    'X-Retry-Count': String(outcome.retries),
    ...(outcome.fallbackFrom ? { 'X-Fallback-From': outcome.fallbackFrom } : {}),
  };
}

function guardrailHeader(statuses: readonly GuardrailStatus[]): Record<string, string> {
  const value = statusHeader(statuses);
  return value ? { 'X-Guardrail-Status': value } : {};
}
