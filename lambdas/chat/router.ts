import type { ProviderId } from '../catalog/model-catalog.js';
import type { ChatAdapter, UpstreamTarget } from '../providers/chat-adapter.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, Usage } from '../providers/chat-types.js';
import type { completeOnce, streamOnce } from '../providers/upstream-call.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import { allowsFallback, isRetryable, UpstreamError, type UpstreamFailure } from '../providers/upstream-failure.js';
import { backoffMs, BACKOFF_CAP_MS } from './backoff.js';
import { ChatError } from './chat-errors.js';
import type { LoadBalancer } from './load-balancer.js';
import { targetKey, type Target } from './targets.js';

/** One upstream attempt, as metered: every attempt that happened is reported exactly once. */
export interface Attempt {
  readonly target: Target;
  readonly durationMs: number;
  readonly failure?: UpstreamFailure;
  readonly usage?: Usage;
  /** Streams that answered: from the request to the first chunk of substance. */
  readonly firstTokenMs?: number;
  /** Overrides the recorded outcome (e.g. `client_closed`: the caller left mid-stream). */
  readonly outcome?: string;
}

/** One upstream attempt, whole or streamed: the network in a deployment, a fake in unit tests. */
export interface UpstreamCaller {
  readonly complete: typeof completeOnce;
  readonly stream: typeof streamOnce;
}

export interface RouterDeps {
  /** Credentials for a provider: the caller's stored key if any, else the platform's. */
  endpoint(provider: ProviderId): Promise<ProviderEndpoint | undefined>;
  adapterFor(provider: ProviderId): ChatAdapter;
  balancer: LoadBalancer;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Milliseconds since the epoch: attempt durations and latency observations read it. */
  now(): number;
  readonly upstream: UpstreamCaller;
  onAttempt(attempt: Attempt): void;
  /**
   * Before each attempt: may refuse it (a budget that cannot hold it throws) or adjust what is
   * sent (a budget caps the output). @default every attempt goes as planned
   */
  admit?(target: Target, request: ChatRequest): Promise<ChatRequest>;
}

export interface RouteOptions {
  readonly targets: readonly Target[];
  /** The request as this target gets it (e.g. images described for models without vision). */
  readonly upstreamRequest: (target: Target) => ChatRequest | Promise<ChatRequest>;
  /** Retries per target on transient failures. */
  readonly retries: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** What the client is told about routing (X-Model-Used, X-Fallback-From, X-Retry-Count). */
export interface RoutingOutcome {
  readonly target: Target;
  readonly retries: number;
  /** The first target's requested model, when another target served. */
  readonly fallbackFrom?: string;
}

export interface RoutedCompletion extends RoutingOutcome {
  readonly completion: ChatCompletion;
}

export interface RoutedStream extends RoutingOutcome {
  /** The chunks read before committing to this target (at least one with substance). */
  readonly head: readonly ChatCompletionChunk[];
  readonly rest: AsyncIterator<ChatCompletionChunk>;
  usage(): Usage | undefined;
  readonly startedAt: number;
  /** When the first chunk of substance arrived (same clock as `startedAt`). */
  readonly firstTokenAt: number;
}

type AttemptResult<T> = { ok: true; value: T } | { ok: false; failure: UpstreamFailure };

export function routeCompletion(options: RouteOptions, deps: RouterDeps): Promise<RoutedCompletion> {
  return route(options, deps, async (adapter, request, upstream, target) => {
    const started = deps.now();
    try {
      const completion = await deps.upstream.complete(adapter, request, upstream, {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
      });
      deps.onAttempt({ target, durationMs: deps.now() - started, usage: completion.usage });
      deps.balancer.observe(targetKey(target), deps.now() - started);
      return { ok: true, value: completion };
    } catch (error) {
      const failure = failureOf(error, options.signal, () =>
        deps.onAttempt({ target, durationMs: deps.now() - started, outcome: 'client_closed' }),
      );
      deps.onAttempt({ target, durationMs: deps.now() - started, failure });
      return { ok: false, failure };
    }
  }).then(({ value, ...outcome }) => ({ ...outcome, completion: value }));
}

/**
 * Opens a stream and reads until its first chunk of substance, failing over on any failure
 * before that point: until then the client has seen nothing, not even headers. After it, the
 * caller owns the stream (and reports its end or failure through `onAttempt` itself).
 */
export function routeStream(options: RouteOptions, deps: RouterDeps): Promise<RoutedStream> {
  return route(options, deps, async (adapter, request, upstream, target) => {
    const started = deps.now();
    let usage: (() => Usage | undefined) | undefined;
    try {
      const stream = await deps.upstream.stream(adapter, request, upstream, {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
      });
      usage = stream.usage;
      const rest = stream.chunks[Symbol.asyncIterator]();
      const head: ChatCompletionChunk[] = [];
      for (;;) {
        const next = await rest.next();
        if (next.done)
          throw new UpstreamError({ kind: 'malformed', message: 'upstream stream ended without an answer' });
        head.push(next.value);
        if (hasSubstance(next.value)) break;
      }
      const firstTokenAt = deps.now();
      deps.balancer.observe(targetKey(target), firstTokenAt - started);
      return { ok: true, value: { head, rest, usage: stream.usage, startedAt: started, firstTokenAt } };
    } catch (error) {
      const failure = failureOf(error, options.signal, () =>
        deps.onAttempt({ target, durationMs: deps.now() - started, outcome: 'client_closed', usage: usage?.() }),
      );
      deps.onAttempt({ target, durationMs: deps.now() - started, failure, usage: usage?.() });
      return { ok: false, failure };
    }
  }).then(({ value, ...outcome }) => ({ ...outcome, ...value }));
}

async function route<T>(
  options: RouteOptions,
  deps: RouterDeps,
  attempt: (
    adapter: ChatAdapter,
    request: ChatRequest,
    upstream: UpstreamTarget,
    target: Target,
  ) => Promise<AttemptResult<T>>,
): Promise<RoutingOutcome & { value: T }> {
  let retries = 0;
  let lastFailure: UpstreamFailure | undefined;
  let firstTried: Target | undefined;
  for (const target of options.targets) {
    const endpoint = await deps.endpoint(target.provider);
    if (!endpoint) continue;
    firstTried ??= target;
    const upstream: UpstreamTarget = {
      provider: target.provider,
      baseUrl: endpoint.baseUrl,
      apiKey: endpoint.apiKey,
      model: target.model,
      ...(endpoint.signing ? { signing: endpoint.signing } : {}),
    };
    const request = await options.upstreamRequest(target);
    const adapter = deps.adapterFor(target.provider);
    for (let tries = 0; ; tries++) {
      const sent = deps.admit ? await deps.admit(target, request) : request;
      const result = await attempt(adapter, sent, upstream, target);
      if (result.ok) {
        const fallbackFrom = target === firstTried ? undefined : firstTried.requested;
        return { target, retries, value: result.value, ...(fallbackFrom ? { fallbackFrom } : {}) };
      }
      lastFailure = result.failure;
      if (!allowsFallback(result.failure)) throw toClientError(result.failure);
      if (!isRetryable(result.failure) || tries >= options.retries || hintTooLong(result.failure)) break;
      retries++;
      await deps.sleep(backoffMs(tries, result.failure.retryAfterMs), options.signal);
    }
  }
  if (!lastFailure) throw new ChatError('model_unavailable', 'No provider is configured for this model');
  throw toClientError(lastFailure);
}

/** A long retry-after is better spent on the next target than waiting. */
const hintTooLong = (failure: UpstreamFailure) => (failure.retryAfterMs ?? 0) > BACKOFF_CAP_MS;

/**
 * The upstream's failure, or, when the call itself ended (the caller left or the function must
 * stop), nothing to retry: the attempt is still metered (`onCallEnded`), then the end rethrown.
 */
function failureOf(error: unknown, signal: AbortSignal, onCallEnded: () => void): UpstreamFailure {
  if (error instanceof UpstreamError) return error.failure;
  if (signal.aborted) {
    onCallEnded();
    throw error;
  }
  return { kind: 'connection', message: error instanceof Error ? error.message : String(error) };
}

function hasSubstance(chunk: ChatCompletionChunk): boolean {
  return chunk.choices.some(
    (choice) => choice.finish_reason !== null || !!choice.delta.content || (choice.delta.tool_calls?.length ?? 0) > 0,
  );
}

/** The caller's error once routing gave up: its own mistakes, rate limiting, or unavailability. */
export function toClientError(failure: UpstreamFailure): ChatError {
  switch (failure.kind) {
    case 'bad_request':
      return new ChatError('invalid_request', `The model provider rejected the request: ${failure.message}`);
    case 'content_filter':
      return new ChatError('content_filtered', `The model provider refused the content: ${failure.message}`);
    case 'rate_limit':
      return new ChatError('upstream_rate_limited', 'The model provider is rate limiting; retry shortly', {
        retryAfterSeconds: Math.max(1, Math.ceil((failure.retryAfterMs ?? 1000) / 1000)),
      });
    default:
      return new ChatError('model_unavailable', `The model is unavailable (${failure.kind}): ${failure.message}`);
  }
}
