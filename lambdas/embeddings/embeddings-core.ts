import { hash } from 'node:crypto';
import {
  EMBEDDING_MODELS,
  PROVIDERS,
  resolveEmbeddingModel,
  type EmbeddingModel,
  type EmbeddingRoute,
  type ProviderId,
  type WireFormat,
} from '../catalog/model-catalog.js';
import type { CachePolicy } from '../chat/response-cache.js';
import { backoffMs } from '../chat/backoff.js';
import type { MeterObserver } from '../observability/usage-metrics.js';
import { readBoundedText, parseJsonObject } from '../providers/bounded-answer.js';
import type { TransportRequest, TransportResponse } from '../providers/http-transport.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import {
  allowsFallback,
  isRetryable,
  upstreamFailure,
  UpstreamError,
  type UpstreamFailure,
} from '../providers/upstream-failure.js';
import { canonicalJson } from '../schema/canonical-json.js';
import type { CachedAnswer } from '../store/cached-answers.js';
import { BudgetHolds, type BudgetStore, type BudgetObserver, type ScopedBudget } from '../usage/budget-holds.js';
import { embeddingCostBoundMicroUsd } from '../usage/call-cost-bound.js';
import { estimateTokens, Meter, type UsageSink } from '../usage/metering.js';
import type { EmbeddingAdapter, EmbeddingBatch, EmbeddingTarget, UpstreamVector } from './embedding-adapter.js';
import { EmbeddingsError, invalidEmbeddings } from './embeddings-errors.js';
import { embeddingsJobOf, type EmbeddingsJob, type EmbeddingsRequestBody } from './embeddings-request.js';
import { encodeVector, type EmbeddingList } from './embedding-encoding.js';
import { geminiEmbeddingsAdapter } from './gemini-embeddings-wire.js';
import { openAiEmbeddingsAdapter } from './openai-embeddings-wire.js';

/**
 * One embeddings request, transport-free (docs/interface.md §4.12):
 *
 *     input  the body, the caller's account and budgets, the cache policy, the request's ids,
 *            its signal, and `defer` for work after the answer (ledger entries, the cache write)
 *     deps   endpoints (the caller's own provider keys first), the transport, sleep, the cache,
 *            the ledger sink, the budget store
 *     result the OpenAI `list` of embeddings, who served it, X-Cache
 *
 * The texts go in batches of the model's `maxInputsPerCall`; each batch tries the model's
 * routes in order, retrying transient failures with backoff, failing over to the next route on
 * anything but the caller's own mistake. Before each upstream call its greatest cost is reserved
 * against the caller's budgets and after it settled to its metered cost; each call is one ledger
 * entry, a cache hit one free `cache_hit` entry.
 */

export interface EmbeddingsInput {
  readonly body: EmbeddingsRequestBody;
  readonly account: { readonly accountId: string; readonly keyId?: string; readonly budgets: readonly ScopedBudget[] };
  readonly requestId: string;
  readonly route: string;
  readonly startedAt: Date;
  readonly cache: CachePolicy;
  readonly signal: AbortSignal;
  readonly defer: (task: () => Promise<void>) => void;
}

export interface EmbeddingsDeps {
  /** Per account: the caller's stored key for a provider, else the platform's; undefined when neither. */
  endpointsFor(accountId: string): (provider: ProviderId) => Promise<ProviderEndpoint | undefined>;
  send(request: TransportRequest): Promise<TransportResponse>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  readonly random?: () => number;
  readAnswer(accountId: string, hash: string): Promise<CachedAnswer | undefined>;
  storeAnswer(
    accountId: string,
    hash: string,
    answer: Omit<CachedAnswer, 'expiresAt'>,
    ttlSeconds: number,
  ): Promise<boolean>;
  readonly recordUsage: UsageSink;
  readonly observeUsage?: MeterObserver;
  readonly budgetStore: BudgetStore;
  readonly observeBudget?: BudgetObserver;
  now(): Date;
  /** Per upstream call, headers and body together. @default ATTEMPT_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

export interface EmbeddingsResult {
  readonly body: EmbeddingList;
  /** The route's model id that served the first batch (or the cached answer). */
  readonly servedBy: string;
  readonly cache: 'HIT' | 'MISS';
  readonly retries: number;
  /** The first route's model id, when a later route served. */
  readonly fallbackFrom?: string;
}

/** Retries per route of transient failures (so three calls at most before the next route). */
export const RETRIES_PER_ROUTE = 2;
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A provider's retry hint longer than this moves to the next route instead of waiting (as chat). */
const MAX_HINT_WAIT_MS = 8_000;

const ADAPTERS: Readonly<Partial<Record<WireFormat, EmbeddingAdapter>>> = {
  'openai-compatible': openAiEmbeddingsAdapter,
  gemini: geminiEmbeddingsAdapter,
};

export async function createEmbeddings(input: EmbeddingsInput, deps: EmbeddingsDeps): Promise<EmbeddingsResult> {
  const model = resolveEmbeddingModel(input.body.model);
  if (!model)
    throw invalidEmbeddings(
      'model',
      `model: ${input.body.model.slice(0, 100)} is not an embedding model; one of ${EMBEDDING_MODELS.map((m) => m.id).join(', ')}`,
    );
  const job = embeddingsJobOf(input.body, model);
  const { accountId, keyId } = input.account;
  const holds = new BudgetHolds(input.account.budgets, {
    store: deps.budgetStore,
    now: deps.now,
    defer: input.defer,
    observe: deps.observeBudget,
  });
  const meter = new Meter(
    { accountId, keyId, requestId: input.requestId, route: input.route, at: input.startedAt },
    deps.recordUsage,
    deps.observeUsage,
    (cost) => holds.settle(cost),
  );
  input.defer(() => meter.flush());

  const key = embeddingsCacheKey(model, job);
  if (input.cache.read) {
    const hit = await deps.readAnswer(accountId, key);
    if (hit) {
      const body = JSON.parse(hit.body) as EmbeddingList;
      const tokens = body.usage.prompt_tokens;
      meter.cacheHit(hit.model, hit.provider, { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens });
      return { body, servedBy: hit.model, cache: 'HIT', retries: 0 };
    }
  }

  const calls = new RouteCaller(model, job, input, deps, meter, holds);
  const data: EmbeddingList['data'][number][] = [];
  let promptTokens = 0;
  let first: BatchOutcome | undefined;
  for (let start = 0; start < job.texts.length; start += model.maxInputsPerCall) {
    const texts = job.texts.slice(start, start + model.maxInputsPerCall);
    const outcome = await calls.embed(texts);
    first ??= outcome;
    promptTokens += outcome.promptTokens;
    outcome.vectors.forEach((vector, i) =>
      data.push({ object: 'embedding', index: start + i, embedding: encodeVector(vector, job.encoding) }),
    );
  }
  const body: EmbeddingList = {
    object: 'list',
    data,
    model: model.id,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
  if (input.cache.write !== false) {
    // Too large for an item (a few thousand float vectors): storeAnswer keeps nothing and says so.
    const stored = { body: JSON.stringify(body), model: first!.route.model, provider: first!.route.provider };
    input.defer(async () => void (await deps.storeAnswer(accountId, key, stored, input.cache.ttlSeconds)));
  }
  return {
    body,
    servedBy: first!.route.model,
    cache: 'MISS',
    retries: calls.retries,
    ...(calls.fallbackFrom ? { fallbackFrom: calls.fallbackFrom } : {}),
  };
}

/**
 * Everything that changes the answer: the model (not the name it was asked by), the texts, the
 * length and the encoding. `user` does not.
 */
export function embeddingsCacheKey(model: EmbeddingModel, job: EmbeddingsJob): string {
  const material = {
    kind: 'embeddings',
    model: model.id,
    texts: job.texts,
    dimensions: job.dimensions,
    encoding: job.encoding,
  };
  return hash('sha256', canonicalJson(material), 'base64url');
}

interface BatchOutcome {
  readonly route: EmbeddingRoute;
  readonly vectors: readonly UpstreamVector[];
  readonly promptTokens: number;
}

/** Calls a batch through the model's routes; remembers retries and the first fallback for the headers. */
class RouteCaller {
  retries = 0;
  fallbackFrom?: string;
  private readonly endpointOf: (provider: ProviderId) => Promise<ProviderEndpoint | undefined>;

  constructor(
    private readonly model: EmbeddingModel,
    private readonly job: EmbeddingsJob,
    private readonly input: EmbeddingsInput,
    private readonly deps: EmbeddingsDeps,
    private readonly meter: Meter,
    private readonly holds: BudgetHolds,
  ) {
    this.endpointOf = deps.endpointsFor(input.account.accountId);
  }

  async embed(texts: readonly string[]): Promise<BatchOutcome> {
    const failures: UpstreamFailure[] = [];
    for (const route of this.model.routes) {
      const adapter = ADAPTERS[PROVIDERS[route.provider].wireFormat];
      const endpoint = adapter && (await this.endpointOf(route.provider));
      if (!adapter || !endpoint) continue;
      if (failures.length > 0) this.fallbackFrom ??= this.model.routes[0]!.model;
      const target: EmbeddingTarget = { ...route, ...endpoint };
      for (let attempt = 0; ; attempt++) {
        const result = await this.call(adapter, target, texts);
        if (!('failure' in result)) return { route, vectors: result.vectors, promptTokens: result.promptTokens };
        const { failure } = result;
        failures.push(failure);
        if (routeLacksModel(failure)) break;
        if (failure.kind === 'bad_request' || failure.kind === 'content_filter')
          throw invalidEmbeddings('input', `input: ${route.provider} refused it: ${failure.message.slice(0, 300)}`);
        const wait = backoffMs(attempt, failure.retryAfterMs, this.deps.random);
        if (!isRetryable(failure) || attempt >= RETRIES_PER_ROUTE || wait > MAX_HINT_WAIT_MS) break;
        this.retries++;
        await this.deps.sleep(wait, this.input.signal);
      }
      const last = failures.at(-1)!;
      if (!allowsFallback(last) && !routeLacksModel(last)) break;
    }
    throw exhausted(failures, this.model);
  }

  /** One upstream call, reserved, metered and settled whatever its end. */
  private async call(
    adapter: EmbeddingAdapter,
    target: EmbeddingTarget,
    texts: readonly string[],
  ): Promise<{ vectors: readonly UpstreamVector[]; promptTokens: number } | { failure: UpstreamFailure }> {
    await this.holds.hold(embeddingCostBoundMicroUsd(target.model, texts));
    const started = Date.now();
    const metered = { model: target.model, provider: target.provider };
    const timeout = AbortSignal.timeout(this.deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
    const signal = AbortSignal.any([this.input.signal, timeout]);
    let batch: EmbeddingBatch;
    try {
      batch = await this.exchange(adapter, target, texts, signal);
    } catch (error) {
      const failure = this.input.signal.aborted
        ? upstreamFailure('connection', 'the caller left')
        : timeout.aborted
          ? upstreamFailure('timeout', `${target.provider} did not answer in time`)
          : error instanceof UpstreamError
            ? error.failure
            : upstreamFailure('connection', `${target.provider}: ${(error as Error).message}`);
      this.meter.attempt({
        target: metered,
        durationMs: Date.now() - started,
        failure,
        ...(this.input.signal.aborted ? { outcome: 'client_closed' } : {}),
      });
      if (this.input.signal.aborted) throw this.input.signal.reason;
      return { failure };
    }
    const reported = batch.promptTokens;
    const estimate = () => ({
      promptTokens: texts.reduce((sum, text) => sum + estimateTokens(text), 0),
      completionTokens: 0,
      estimated: true,
    });
    this.meter.attempt(
      {
        target: metered,
        durationMs: Date.now() - started,
        ...(reported === undefined
          ? {}
          : { usage: { prompt_tokens: reported, completion_tokens: 0, total_tokens: reported } }),
      },
      estimate,
    );
    return { vectors: batch.vectors, promptTokens: this.meter.recorded.at(-1)!.promptTokens };
  }

  private async exchange(
    adapter: EmbeddingAdapter,
    target: EmbeddingTarget,
    texts: readonly string[],
    signal: AbortSignal,
  ): Promise<EmbeddingBatch> {
    const request = adapter.request(target, texts, this.job);
    const response = await this.deps.send({ ...request, method: 'POST', signal });
    const limit = texts.length * (this.job.dimensions * MAX_WIRE_BYTES_PER_VALUE + 1024) + 65_536;
    const text = await readBoundedText(response.body, limit, () =>
      malformed(response.status, `the answer exceeded ${limit} bytes`),
    );
    if (response.status < 200 || response.status >= 300)
      throw new UpstreamError(adapter.classifyError(response.status, response.headers, text, target.provider));
    const batch = adapter.read(parseJsonObject(text), texts.length, this.job.dimensions);
    if (!batch)
      throw malformed(
        response.status,
        `${target.provider} answered something that is not ${texts.length} embeddings of ${this.job.dimensions} values`,
      );
    return batch;
  }
}

/**
 * The route's provider does not serve the model (404, OpenAI's and OpenRouter's `model_not_found`):
 * the catalog's route is wrong, not the caller's input, so the next route is tried.
 */
const routeLacksModel = (failure: UpstreamFailure): boolean =>
  failure.status === 404 || failure.providerCode === 'model_not_found';

/** A value as an upstream may write it at the longest: a float in indented JSON (Gemini indents). */
const MAX_WIRE_BYTES_PER_VALUE = 48;

const malformed = (status: number, message: string) =>
  new UpstreamError(upstreamFailure('malformed', message, { status }));

/** No route answered: rate limited everywhere (429 with the shortest hint), else unavailable. */
function exhausted(failures: readonly UpstreamFailure[], model: EmbeddingModel): EmbeddingsError {
  if (failures.length === 0)
    return new EmbeddingsError('unavailable', `No provider of ${model.id} is configured on this deployment`);
  if (failures.every((failure) => failure.kind === 'rate_limit')) {
    const hints = failures.flatMap((failure) => (failure.retryAfterMs === undefined ? [] : [failure.retryAfterMs]));
    return new EmbeddingsError('rate_limited', `Every provider of ${model.id} is rate limiting`, {
      ...(hints.length > 0 ? { retryAfterMs: Math.min(...hints) } : {}),
    });
  }
  const last = failures.at(-1)!;
  return new EmbeddingsError('unavailable', `No provider of ${model.id} answered (last: ${last.kind})`);
}
