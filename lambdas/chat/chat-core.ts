/**
 * The chat core: one chat request, from a validated body to a domain result. It knows no HTTP;
 * the handler (lambdas/handlers/chat-completions.ts) and lambdas/http translate, and the arena
 * calls it once per agent turn.
 *
 *   chatCompletion(input: ChatInput, deps: ChatDeps): Promise<ChatResult>
 *     input  the request, the caller's account, requestId, startedAt, the cache policy, the
 *            guardrail names, the signal (plus whether its end was the deadline), and `defer`
 *            for work after the answer (usage entries, the cache write)
 *     deps   endpoint lookup, adapterFor, balancer, sleep, clock, upstream caller, usage sink, cache read/store,
 *            moderator, prompt template fetch, image describer
 *     result { kind: 'whole', completion, routing, cache: HIT | MISS | BYPASS, guardrailStatus }
 *          | { kind: 'stream', chunks, routing, guardrailStatus }
 *
 * Failures before an answer are thrown as ChatError; a stream that fails after its first chunk
 * throws a ChatError from its iterator. Every upstream attempt is metered, failed ones included:
 * the usage entries are deferred as soon as the meter exists, so a failure still writes them.
 */
import type { ProviderId } from '../catalog/model-catalog.js';
import type { ChatAdapter } from '../providers/chat-adapter.js';
import type { ChatCompletion, ChatCompletionChunk, ChatMessage, ChatRequest } from '../providers/chat-types.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import type { CachedAnswer } from '../store/cached-answers.js';
import { putRequestContent, type RequestContent } from '../store/request-contents.js';
import { cacheKey } from './cache-key.js';
import { checkChatRequest } from './chat-request-checks.js';
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, type GatewayChatRequest } from './chat-request.js';
import { chatStreamChunks } from './chat-stream.js';
import { ChatError } from './chat-errors.js';
import { answerStreamGuard } from './guardrails/stream-guard.js';
import { guardAnswer, guardRequest } from './guardrails/guardrail-pipeline.js';
import { statusHeader, type GuardrailName, type GuardrailStatus } from './guardrails/outcomes.js';
import { type Moderator } from './guardrails/moderation.js';
import type { DescribeContext } from './image-descriptions.js';
import { hasImages } from './image-descriptions.js';
import type { LoadBalancer } from './load-balancer.js';
import type { MeterObserver } from '../observability/usage-metrics.js';
import { BudgetHolds, type BudgetStore, type BudgetObserver, type ScopedBudget } from '../usage/budget-holds.js';
import { Meter, type UsageSink, type UsageTags } from '../usage/metering.js';
import { applyPrompt, type ApplyPromptDeps } from './prompts/apply-prompt.js';
import { cacheVerdict, type CachePolicy } from './response-cache.js';
import {
  routeCompletion,
  routeStream,
  type RouteOptions,
  type RouterDeps,
  type RoutingOutcome,
  type UpstreamCaller,
} from './router.js';
import { planTargets, type Target } from './targets.js';
import { upstreamRequest } from './upstream-request.js';

export interface ChatAccount {
  readonly accountId: string;
  readonly keyId?: string;
  /** The budgets the request falls under (the key's, the account's): each call reserves against them. */
  readonly budgets?: readonly ScopedBudget[];
}

export interface ChatInput {
  /** The validated body (checkChatRequest runs here, first). */
  readonly request: GatewayChatRequest;
  readonly account: ChatAccount;
  readonly requestId: string;
  /** The route usage is recorded under. */
  readonly route: string;
  /** Set by the arena: the session, round, agent and purpose each usage entry carries. */
  readonly usageTags?: UsageTags;
  readonly startedAt: Date;
  readonly cache: CachePolicy;
  readonly guardrails: readonly GuardrailName[];
  readonly signal: AbortSignal;
  /** True when the signal ended because time ran out rather than because the caller left. */
  readonly deadlineReached: () => boolean;
  /** Work that runs after the answer went out (the caller decides when and how). */
  readonly defer: (task: () => Promise<void>) => void;
  /** The key's opt-in to keeping the request's prompt and answer (absent: nothing is kept). */
  readonly contentLog?: { readonly retentionDays: number };
}

export interface ChatDeps {
  /** Credentials per provider for this account: its stored key if any, else the platform's. */
  endpointsFor(accountId: string): (provider: ProviderId) => Promise<ProviderEndpoint | undefined>;
  adapterFor(provider: ProviderId): ChatAdapter;
  readonly balancer: LoadBalancer;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Milliseconds since the epoch (attempt durations, latency observations). */
  now(): number;
  readonly upstream: UpstreamCaller;
  readonly recordUsage: UsageSink;
  /** Sees each metered entry as it is made (metrics in a deployment). @default none */
  readonly observeUsage?: MeterObserver;
  readAnswer(accountId: string, hash: string): Promise<CachedAnswer | undefined>;
  storeAnswer(
    accountId: string,
    hash: string,
    answer: Omit<CachedAnswer, 'expiresAt'>,
    ttlSeconds: number,
  ): Promise<unknown>;
  /** Built only when a guardrail asks for it (building one checks its configuration). */
  moderator(): Moderator;
  readonly fetchTemplate: ApplyPromptDeps['fetchTemplate'];
  describeImages(messages: readonly ChatMessage[], context: DescribeContext): Promise<ChatMessage[]>;
  /** Where budgets' reservations are kept. @default DynamoDB (lambdas/store/budget-counters.ts) */
  readonly budgetStore?: BudgetStore;
  /** Hears a budget's spend reaching a threshold (a metric and a log line in a deployment). @default none */
  readonly observeBudget?: BudgetObserver;
  /** Keeps a request's content for a key that opted in. @default putRequestContent (lambdas/store/request-contents.ts) */
  readonly keepContent?: (accountId: string, content: RequestContent, retentionDays: number) => Promise<unknown>;
}

/** What the caller is told about routing: the model that answered, retries, the fallback. */
export interface ChatRouting {
  readonly model: string;
  readonly retries: number;
  /** The first target's requested model, when another target served. */
  readonly fallbackFrom?: string;
}

export type ChatResult =
  | {
      readonly kind: 'whole';
      readonly completion: ChatCompletion;
      readonly routing: ChatRouting;
      readonly cache: 'HIT' | 'MISS' | 'BYPASS';
      /** The guardrails' outcomes (`pii:redact,...`), empty when none ran. */
      readonly guardrailStatus: string;
    }
  | {
      readonly kind: 'stream';
      readonly chunks: AsyncIterable<ChatCompletionChunk>;
      readonly routing: ChatRouting;
      /** The request guardrails' outcomes: all that is known before the answer streams. */
      readonly guardrailStatus: string;
    };

/** Everything one chat request needs once it is prepared. */
interface ChatPlan {
  readonly input: ChatInput;
  readonly request: GatewayChatRequest;
  readonly meter: Meter;
  readonly deps: ChatDeps;
  readonly routerDeps: RouterDeps;
  readonly routing: RouteOptions;
  readonly requestStatuses: readonly GuardrailStatus[];
}

/** Prepare, then stream or answer; every attempt is metered. */
export async function chatCompletion(input: ChatInput, deps: ChatDeps): Promise<ChatResult> {
  const plan = await prepare(input, deps);
  return plan.request.stream ? streamed(plan) : whole(plan);
}

/**
 * The managed prompt's turns first, then the request guardrails (PII is redacted before
 * anything leaves), then the attempt plan. Images are described lazily, only for a target
 * without vision that is actually tried.
 */
async function prepare(input: ChatInput, deps: ChatDeps): Promise<ChatPlan> {
  checkChatRequest(input.request);
  const { accountId, keyId } = input.account;
  const prompted = await applyPrompt(input.request, { fetchTemplate: deps.fetchTemplate }, input.signal);
  const unguarded = upstreamRequest({ ...input.request, messages: prompted }, input.request.model);
  const guarded = input.guardrails.length
    ? await guardRequest(unguarded, input.guardrails, deps.moderator(), input.signal)
    : { request: unguarded, statuses: [] };
  const request: GatewayChatRequest = { ...input.request, messages: guarded.request.messages };
  const holds = new BudgetHolds(input.account.budgets ?? [], {
    store: deps.budgetStore,
    now: () => new Date(deps.now()),
    defer: input.defer,
    observe: deps.observeBudget,
  });
  const meter = new Meter(
    { requestId: input.requestId, accountId, keyId, route: input.route, at: input.startedAt, tags: input.usageTags },
    deps.recordUsage,
    deps.observeUsage,
    (cost) => holds.settle(cost),
  );
  input.defer(() => meter.flush());
  if (input.guardrails.length) meter.annotate(() => ({ guardrails: statusHeader(guarded.statuses) }));
  const routerDeps = routerDepsOf(deps, accountId, meter, holds);
  let described: Promise<ChatMessage[]> | undefined;
  const messagesFor = (target: Target) => {
    if (target.family.vision || !hasImages(request.messages)) return request.messages;
    described ??= deps.describeImages(request.messages, { accountId, deps: routerDeps, signal: input.signal });
    return described;
  };
  const routing: RouteOptions = {
    targets: planTargets(request, deps.balancer),
    upstreamRequest: async (target) =>
      upstreamRequest({ ...request, messages: await messagesFor(target) }, target.model),
    retries: request.retries ?? DEFAULT_RETRIES,
    timeoutMs: request.timeout ?? DEFAULT_TIMEOUT_MS,
    signal: input.signal,
  };
  return { input, request, meter, deps, routerDeps, routing, requestStatuses: guarded.statuses };
}

/**
 * The router's view of the chat dependencies for one account, every attempt metered on `meter`
 * and, when budgets apply, admitted by `holds` first.
 */
export function routerDepsOf(deps: ChatDeps, accountId: string, meter: Meter, holds?: BudgetHolds): RouterDeps {
  return {
    ...(holds?.active ? { admit: (target: Target, request: ChatRequest) => holds.admit(target.model, request) } : {}),
    endpoint: deps.endpointsFor(accountId),
    adapterFor: deps.adapterFor,
    balancer: deps.balancer,
    sleep: deps.sleep,
    now: deps.now,
    upstream: deps.upstream,
    onAttempt: (attempt) => meter.attempt(attempt),
  };
}

/** Streams are never cached; answer guardrails run on the chunks as they pass. */
async function streamed(plan: ChatPlan): Promise<ChatResult> {
  const { input, request } = plan;
  const routed = await routeStream(plan.routing, plan.routerDeps);
  const guard = input.guardrails.length
    ? answerStreamGuard(input.guardrails, upstreamRequest(request, routed.target.model), plan.deps.moderator(), {
        signal: input.signal,
        requestStatuses: plan.requestStatuses,
      })
    : undefined;
  if (guard) plan.meter.annotate(() => ({ guardrails: guardrailRecord(guard.statuses(), guard.blockedBy()) }));
  const chunks = chatStreamChunks(
    routed,
    {
      id: completionId(input),
      created: Math.floor(input.startedAt.getTime() / 1000),
      includeUsage: request.stream_options?.include_usage === true,
      messages: request.messages,
      guard,
      signal: input.signal,
      deadlineReached: input.deadlineReached,
      now: plan.deps.now,
    },
    plan.meter,
  );
  keepContent(plan, () => chunks.deliveredContent.map((content) => ({ role: 'assistant', content })));
  return { kind: 'stream', chunks, routing: routingOf(routed), guardrailStatus: statusHeader(plan.requestStatuses) };
}

/** Non-streaming: the cache first, then the routed answer, guarded, cached unless it calls tools. */
async function whole(plan: ChatPlan): Promise<ChatResult> {
  const { input, request, deps } = plan;
  const { accountId } = input.account;
  const id = completionId(input);
  const hash = cacheKey(request, plan.routing.targets[0]!.model, input.guardrails);
  if (input.cache.read) {
    const hit = await deps.readAnswer(accountId, hash);
    if (hit) {
      const cached = JSON.parse(hit.body) as ChatCompletion;
      plan.meter.cacheHit(hit.model, hit.provider, cached.usage);
      if (hit.guardrailStatus) plan.meter.annotate(() => ({ guardrails: hit.guardrailStatus }));
      keepContent(plan, () => cached.choices.map((choice) => choice.message));
      return {
        kind: 'whole',
        completion: { ...cached, id },
        routing: { model: hit.model, retries: 0 },
        cache: 'HIT',
        guardrailStatus: hit.guardrailStatus ?? '',
      };
    }
  }

  const routed = await routeCompletion(plan.routing, plan.routerDeps);
  let completion: ChatCompletion = { ...routed.completion, id, model: routed.target.model };
  let statuses = plan.requestStatuses;
  if (input.guardrails.length) {
    const guarded = await guardAnswer(
      completion,
      input.guardrails,
      upstreamRequest(request, routed.target.model),
      deps.moderator(),
      input.signal,
      plan.requestStatuses,
    ).catch((error: unknown) => {
      if (error instanceof ChatError)
        plan.meter.annotate(() => ({ guardrails: guardrailRecord(plan.requestStatuses, error) }));
      throw error;
    });
    completion = guarded.completion;
    statuses = guarded.statuses;
    plan.meter.annotate(() => ({ guardrails: statusHeader(statuses) }));
  }
  const { choices } = completion;
  keepContent(plan, () => choices.map((choice) => choice.message));
  const verdict = cacheVerdict(completion, input.cache);
  if (verdict.store) {
    const stored = {
      body: JSON.stringify(completion),
      model: routed.target.model,
      provider: routed.target.provider,
      guardrailStatus: statusHeader(statuses),
    };
    input.defer(async () => void (await deps.storeAnswer(accountId, hash, stored, input.cache.ttlSeconds)));
  }
  return {
    kind: 'whole',
    completion,
    routing: routingOf(routed),
    cache: verdict.cache,
    guardrailStatus: statusHeader(statuses),
  };
}

const completionId = (input: ChatInput) => `chatcmpl-${input.requestId}`;

/**
 * For a key that opted in, the request's content is kept after the answer went out: the
 * messages as they went upstream (guardrails applied, images' bytes left out) and the answer
 * as the caller received it (`answer` is read then: a stream's text is whole by that time).
 */
function keepContent(plan: ChatPlan, answer: () => unknown): void {
  const { input, request, deps } = plan;
  const retention = input.contentLog?.retentionDays;
  if (retention === undefined) return;
  input.defer(async () => {
    const content: RequestContent = {
      requestId: input.requestId,
      at: input.startedAt.toISOString(),
      ...(input.account.keyId ? { keyId: input.account.keyId } : {}),
      route: input.route,
      messages: request.messages.map(withoutImageBytes),
      answer: answer(),
      truncated: false,
    };
    await (deps.keepContent ?? putRequestContent)(input.account.accountId, content, retention);
  });
}

/** A message with its inline images' bytes replaced by a note of their size: the log keeps words. */
function withoutImageBytes(message: ChatMessage): ChatMessage {
  if (!Array.isArray(message.content)) return message;
  const content = message.content.map((part) =>
    part.type === 'image_url' && part.image_url.url.startsWith('data:')
      ? { ...part, image_url: { ...part.image_url, url: `data:… (${part.image_url.url.length} characters left out)` } }
      : part,
  );
  return { ...message, content } as ChatMessage;
}

/** Which guardrail an error of theirs stands for, as the ledger records a stopped answer. */
const BLOCKING: Readonly<Partial<Record<string, string>>> = {
  content_blocked: 'content_moderation:block',
  schema_validation_failed: 'schema_validation:fail',
};

/** The outcomes the ledger keeps for a request (UsageEntry.guardrails): the statuses, and what stopped it. */
function guardrailRecord(statuses: readonly GuardrailStatus[], blocked?: ChatError): string {
  const stop = blocked ? BLOCKING[blocked.kind] : undefined;
  return [statusHeader(statuses), stop].filter(Boolean).join(',');
}

function routingOf(outcome: RoutingOutcome): ChatRouting {
  return {
    model: outcome.target.model,
    retries: outcome.retries,
    ...(outcome.fallbackFrom ? { fallbackFrom: outcome.fallbackFrom } : {}),
  };
}
