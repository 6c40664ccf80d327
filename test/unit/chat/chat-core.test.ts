import type { ProviderId } from '../../../lambdas/catalog/model-catalog.js';
import { chatCompletion, type ChatDeps, type ChatInput, type ChatResult } from '../../../lambdas/chat/chat-core.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';
import type { GatewayChatRequest } from '../../../lambdas/chat/chat-request.js';
import { localModerator } from '../../../lambdas/chat/guardrails/moderation.js';
import { LoadBalancer } from '../../../lambdas/chat/load-balancer.js';
import type { UpstreamCaller } from '../../../lambdas/chat/router.js';
import { adapterFor } from '../../../lambdas/providers/chat-adapters.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, Usage } from '../../../lambdas/providers/chat-types.js';
import { keyBudgetScope } from '../../../lambdas/store/budget-counters.js';
import { BudgetError } from '../../../lambdas/usage/budget-errors.js';
import type { BudgetStore, ScopedBudget } from '../../../lambdas/usage/budget-holds.js';
import { callCostBoundMicroUsd, OUTPUT_CAP_TOKENS } from '../../../lambdas/usage/call-cost-bound.js';
import { UpstreamError, type UpstreamFailure } from '../../../lambdas/providers/upstream-failure.js';
import type { CachedAnswer } from '../../../lambdas/store/cached-answers.js';
import type { AttemptTiming } from '../../../lambdas/observability/usage-metrics.js';
import type { UsageEntry } from '../../../lambdas/usage/usage-ledger.js';

/**
 * The chat core without servers: the upstream attempts are scripted per provider model (the
 * only fake; the network is what has no in-process stand-in), everything else is real: the
 * catalog's target plan, the router, backoff decisions, guardrails, the meter.
 */
type Step =
  | { readonly answer: string }
  | { readonly fail: UpstreamFailure }
  /** Streams: these deltas, then a failure or (with `hang`) nothing until the caller aborts. */
  | { readonly deltas: readonly string[]; readonly thenFail?: UpstreamFailure; readonly hang?: boolean };

const USAGE: Usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };
const overload: UpstreamFailure = { kind: 'overload', status: 503, message: 'busy' };

function scriptedUpstream(script: Record<string, Step[]>) {
  const calls: string[] = [];
  const sent: ChatRequest[] = [];
  const next = (model: string): Step => {
    calls.push(model);
    const step = script[model]?.shift();
    if (!step) throw new Error(`unscripted attempt on ${model}`);
    return step;
  };
  const caller: UpstreamCaller = {
    complete: async (_adapter, request, target) => {
      sent.push(request);
      const step = next(target.model);
      if ('fail' in step) throw new UpstreamError(step.fail);
      if (!('answer' in step)) throw new Error('a stream step for a whole request');
      return completion(target.model, step.answer);
    },
    stream: async (_adapter, request, target, options) => {
      sent.push(request);
      const step = next(target.model);
      if ('fail' in step) throw new UpstreamError(step.fail);
      if (!('deltas' in step)) throw new Error('a whole step for a stream');
      return { chunks: scriptedChunks(step, options.signal), usage: () => USAGE };
    },
  };
  return { calls, sent, caller };
}

async function* scriptedChunks(
  step: Extract<Step, { deltas: readonly string[] }>,
  signal: AbortSignal,
): AsyncGenerator<ChatCompletionChunk> {
  for (const content of step.deltas) yield chunk({ content }, null);
  if (step.thenFail) throw new UpstreamError(step.thenFail);
  if (step.hang) {
    await new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }
  yield chunk({}, 'stop');
}

const chunk = (delta: { content?: string }, finish: 'stop' | null): ChatCompletionChunk => ({
  id: 'up',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const completion = (model: string, content: string): ChatCompletion => ({
  id: 'up',
  object: 'chat.completion',
  created: 1,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: USAGE,
});

interface Harness {
  readonly deps: ChatDeps;
  readonly calls: string[];
  /** The requests the upstream attempts were sent, in order. */
  readonly sent: ChatRequest[];
  readonly sleeps: number[];
  readonly ledger: UsageEntry[];
  readonly deferred: (() => Promise<void>)[];
  readonly controller: AbortController;
  run(request: Partial<GatewayChatRequest>, overrides?: Partial<ChatInput>): Promise<ChatResult>;
  /** Runs the work deferred to after the answer (usage entries, cache writes). */
  settle(): Promise<void>;
}

function harness(
  script: Record<string, Step[]>,
  configured?: readonly ProviderId[],
  budgetStore?: BudgetStore,
): Harness {
  const { calls, sent, caller } = scriptedUpstream(script);
  const sleeps: number[] = [];
  const ledger: UsageEntry[] = [];
  const deferred: (() => Promise<void>)[] = [];
  const cache = new Map<string, Omit<CachedAnswer, 'expiresAt'>>();
  const controller = new AbortController();
  // Time moves only when the core sleeps: durations are exact and runs repeatable.
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const deps: ChatDeps = {
    endpointsFor: () => async (provider) =>
      !configured || configured.includes(provider) ? { baseUrl: 'http://unused', apiKey: 'k' } : undefined,
    adapterFor,
    balancer: new LoadBalancer(),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    now: () => clock,
    upstream: caller,
    recordUsage: async (entry) => void ledger.push(entry),
    readAnswer: async (accountId, hash) => {
      const hit = cache.get(`${accountId}#${hash}`);
      return hit && { ...hit, expiresAt: Number.MAX_SAFE_INTEGER };
    },
    storeAnswer: async (accountId, hash, answer) => cache.set(`${accountId}#${hash}`, answer),
    moderator: () => localModerator(),
    fetchTemplate: async () => ({ found: false, message: 'no templates in these tests' }),
    describeImages: async () => {
      throw new Error('no images in these tests');
    },
    ...(budgetStore ? { budgetStore } : {}),
  };
  let requests = 0;
  const run = (request: Partial<GatewayChatRequest>, overrides: Partial<ChatInput> = {}) =>
    chatCompletion(
      {
        request: { model: 'gpt', messages: [{ role: 'user', content: 'hi' }], ...request },
        account: { accountId: 'acct-1', keyId: 'key-1' },
        requestId: `req-${++requests}`,
        route: 'chat-completions',
        startedAt: new Date('2026-01-01T00:00:00Z'),
        cache: { read: true, ttlSeconds: 60 },
        guardrails: [],
        signal: controller.signal,
        deadlineReached: () => false,
        defer: (task) => void deferred.push(task),
        ...overrides,
      },
      deps,
    );
  const settle = async () => void (await Promise.all(deferred.splice(0).map((task) => task())));
  return { deps, calls, sent, sleeps, ledger, deferred, controller, run, settle };
}

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const seen: ChatCompletionChunk[] = [];
  for await (const c of chunks) seen.push(c);
  return seen;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

const outcomes = (ledger: readonly UsageEntry[]) => ledger.map((e) => `${e.model}:${e.outcome}`);

describe('routing', () => {
  test('the requested model, then the fallback, then their other routes; the answer says who served', async () => {
    const h = harness({
      'gpt-5': [{ fail: overload }],
      'claude-sonnet-4-5': [{ fail: overload }],
      'openai/gpt-5': [{ answer: 'via openrouter' }],
    });
    const result = await h.run({ fallback: ['claude'], retries: 0 });
    // The requested models first, then the catalog's other routes for each of their families.
    expect(h.calls).toEqual(['gpt-5', 'claude-sonnet-4-5', 'openai/gpt-5']);
    expect(result).toMatchObject({
      kind: 'whole',
      cache: 'MISS',
      routing: { model: 'openai/gpt-5', retries: 0, fallbackFrom: 'gpt' },
      completion: { id: 'chatcmpl-req-1', model: 'openai/gpt-5' },
    });
  });

  test('a provider without credentials is skipped, and the first one tried is what fallback names', async () => {
    const h = harness({ 'openai/gpt-5': [{ answer: 'via openrouter' }] }, ['openrouter']);
    const result = await h.run({});
    expect(h.calls).toEqual(['openai/gpt-5']);
    expect(result.routing).toEqual({ model: 'openai/gpt-5', retries: 0 });
  });

  test('no configured provider at all is model_unavailable, with no attempt', async () => {
    const h = harness({}, []);
    expect(await failureOf(h.run({}))).toMatchObject({ kind: 'model_unavailable' });
    expect(h.calls).toEqual([]);
  });
});

describe('retries', () => {
  test('a transient failure is retried on the same target with backoff, and counted', async () => {
    const h = harness({
      'gpt-5': [{ fail: overload }, { fail: { ...overload, retryAfterMs: 250 } }, { answer: 'ok' }],
    });
    const result = await h.run({ retries: 2 });
    expect(h.calls).toEqual(['gpt-5', 'gpt-5', 'gpt-5']);
    expect(h.sleeps).toHaveLength(2);
    expect(h.sleeps[1]).toBe(250);
    expect(result.routing).toEqual({ model: 'gpt-5', retries: 2 });
  });

  test("the caller's own mistake is neither retried nor sent elsewhere", async () => {
    const h = harness({ 'gpt-5': [{ fail: { kind: 'bad_request', status: 400, message: 'no such parameter' } }] });
    const error = await failureOf(h.run({ fallback: ['claude'], retries: 3 }));
    expect(error).toBeInstanceOf(ChatError);
    expect(error).toMatchObject({ kind: 'invalid_request', message: expect.stringContaining('no such parameter') });
    expect(h.calls).toEqual(['gpt-5']);
  });

  test('rate limiting everywhere is upstream_rate_limited with the hint in whole seconds', async () => {
    const limited: UpstreamFailure = { kind: 'rate_limit', status: 429, message: 'slow down', retryAfterMs: 60_000 };
    const h = harness({ 'gpt-5': [{ fail: limited }], 'openai/gpt-5': [{ fail: limited }] });
    // A hint longer than the backoff cap moves on at once instead of waiting.
    expect(await failureOf(h.run({ retries: 2 }))).toMatchObject({
      kind: 'upstream_rate_limited',
      retryAfterSeconds: 60,
    });
    expect(h.sleeps).toEqual([]);
  });
});

describe('streaming', () => {
  test('a target failing before its first token is failed over; the caller sees only the winner', async () => {
    const h = harness({
      'gpt-5': [{ deltas: [], thenFail: overload }],
      'openai/gpt-5': [{ deltas: ['Hel', 'lo'] }],
    });
    const result = await h.run({ stream: true, retries: 0, stream_options: { include_usage: true } });
    if (result.kind !== 'stream') throw new Error('expected a stream');
    expect(result.routing).toEqual({ model: 'openai/gpt-5', retries: 0, fallbackFrom: 'gpt' });
    const chunks = await collect(result.chunks);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? null)).toEqual(['Hel', 'lo', null, null]);
    expect(chunks[0]).toMatchObject({
      id: 'chatcmpl-req-1',
      model: 'openai/gpt-5',
      choices: [{ delta: { role: 'assistant' } }],
    });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: USAGE });
  });

  test('a failure after the first token ends the stream with upstream_stream_failed, not a failover', async () => {
    const h = harness({ 'gpt-5': [{ deltas: ['partial'], thenFail: { kind: 'connection', message: 'reset' } }] });
    const result = await h.run({ stream: true, fallback: ['claude'] });
    if (result.kind !== 'stream') throw new Error('expected a stream');
    const seen: string[] = [];
    const error = await failureOf(
      (async () => {
        for await (const c of result.chunks) seen.push(c.choices[0]?.delta.content ?? '');
      })(),
    );
    expect(seen).toEqual(['partial']);
    expect(error).toMatchObject({ kind: 'upstream_stream_failed', message: expect.stringContaining('reset') });
    expect(h.calls).toEqual(['gpt-5']);
    await h.settle();
    expect(outcomes(h.ledger)).toEqual(['gpt-5:connection']);
  });
});

describe('metering', () => {
  test('every attempt is one ledger entry, failed ones included, written after the answer', async () => {
    const h = harness({
      'gpt-5': [{ fail: overload }, { fail: overload }],
      'openai/gpt-5': [{ fail: overload }, { answer: 'ok' }],
    });
    await h.run({ retries: 1 });
    expect(h.ledger).toEqual([]);
    await h.settle();
    expect(outcomes(h.ledger)).toEqual([
      'gpt-5:overload',
      'gpt-5:overload',
      'openai/gpt-5:overload',
      'openai/gpt-5:ok',
    ]);
    expect(h.ledger.map((e) => e.sequence)).toEqual([0, 1, 2, 3]);
    expect(h.ledger.at(-1)).toMatchObject({ accountId: 'acct-1', keyId: 'key-1', requestId: 'req-1', promptTokens: 7 });
  });

  test('the observer sees each entry as it is metered, with its duration and, for streams, its first chunk', async () => {
    const h = harness({ 'gpt-5': [{ fail: overload }, { answer: 'ok' }, { deltas: ['a', 'b'] }] });
    const observed: Array<[string, AttemptTiming | undefined]> = [];
    let clock = 0;
    // Every reading of the clock is 10 ms after the last one.
    Object.assign(h.deps, {
      now: () => (clock += 10),
      observeUsage: (entry: UsageEntry, timing?: AttemptTiming) => observed.push([entry.outcome!, timing]),
    });
    await h.run({ retries: 1 });
    expect(observed).toEqual([
      ['overload', { durationMs: 10, firstTokenMs: undefined }],
      ['ok', { durationMs: 10, firstTokenMs: undefined }],
    ]);
    expect(h.ledger).toEqual([]); // seen before the ledger write, which waits for the answer
    const streamed = await h.run({ stream: true });
    if (streamed.kind !== 'stream') throw new Error('expected a stream');
    await collect(streamed.chunks);
    const [outcome, timing] = observed.at(-1)!;
    expect(outcome).toBe('ok');
    expect(timing!.firstTokenMs).toBe(10);
    expect(timing!.durationMs).toBeGreaterThan(timing!.firstTokenMs!);
  });

  test('a request that fails still writes the entries of its attempts', async () => {
    const h = harness({ 'gpt-5': [{ fail: overload }], 'openai/gpt-5': [{ fail: overload }] });
    await failureOf(h.run({ retries: 0 }));
    await h.settle();
    expect(outcomes(h.ledger)).toEqual(['gpt-5:overload', 'openai/gpt-5:overload']);
  });

  test('a cached answer is served without an attempt and metered as a free cache hit', async () => {
    const h = harness({ 'gpt-5': [{ answer: 'once' }] });
    await h.run({});
    await h.settle();
    const again = await h.run({});
    await h.settle();
    expect(h.calls).toEqual(['gpt-5']);
    expect(again).toMatchObject({ kind: 'whole', cache: 'HIT', completion: { id: 'chatcmpl-req-2' } });
    expect(outcomes(h.ledger)).toEqual(['gpt-5:ok', 'gpt-5:cache_hit']);
  });

  test("an arena turn's usage tags are on every entry of its attempts, a retried one included", async () => {
    const h = harness({ 'gpt-5': [{ fail: overload }, { answer: 'ok' }] });
    const usageTags = { sessionId: 'ses_1', round: 2, agent: 'gpt', purpose: 'answer' } as const;
    await h.run({ retries: 1 }, { requestId: 'ses_1/r2/gpt/answer', route: 'fight', usageTags });
    await h.settle();
    expect(h.ledger).toEqual([
      expect.objectContaining({ requestId: 'ses_1/r2/gpt/answer', sequence: 0, route: 'fight', ...usageTags }),
      expect.objectContaining({ requestId: 'ses_1/r2/gpt/answer', sequence: 1, route: 'fight', ...usageTags }),
    ]);
  });
});

describe('abort', () => {
  test('the caller leaving mid-stream ends the iteration with its abort, metered as client_closed', async () => {
    const h = harness({ 'gpt-5': [{ deltas: ['first'], hang: true }] });
    const result = await h.run({ stream: true });
    if (result.kind !== 'stream') throw new Error('expected a stream');
    const iterator = result.chunks[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ choices: [{ delta: { content: 'first' } }] });
    const pending = iterator.next();
    h.controller.abort(new Error('client left'));
    const error = await failureOf(pending);
    expect(error).not.toBeInstanceOf(ChatError);
    await h.settle();
    expect(outcomes(h.ledger)).toEqual(['gpt-5:client_closed']);
  });

  test('a stream cut at the deadline is upstream_stream_failed and metered as a timeout', async () => {
    const h = harness({ 'gpt-5': [{ deltas: ['first'], hang: true }] });
    const result = await h.run({ stream: true }, { deadlineReached: () => h.controller.signal.aborted });
    if (result.kind !== 'stream') throw new Error('expected a stream');
    const iterator = result.chunks[Symbol.asyncIterator]();
    await iterator.next();
    const pending = iterator.next();
    h.controller.abort(new Error('deadline'));
    expect(await failureOf(pending)).toMatchObject({ kind: 'upstream_stream_failed' });
    await h.settle();
    expect(outcomes(h.ledger)).toEqual(['gpt-5:timeout']);
  });
});

describe('guardrails', () => {
  test('a blocked request fails with content_blocked before any attempt', async () => {
    const h = harness({});
    const error = await failureOf(
      h.run(
        { messages: [{ role: 'user', content: 'how do I build a pipe bomb at home' }] },
        { guardrails: ['content_moderation'] },
      ),
    );
    expect(error).toMatchObject({ kind: 'content_blocked', field: 'messages' });
    expect(h.calls).toEqual([]);
  });
});

describe('budgets', () => {
  /** Counters kept in memory: the oracle the core's reservations and settlements are held to. */
  function memoryBudgets() {
    const counters = new Map<string, { committed: number; spent: number }>();
    const of = (key: string) =>
      counters.get(key) ?? (counters.set(key, { committed: 0, spent: 0 }), counters.get(key)!);
    const store: BudgetStore = {
      reserve: async (ref, limit, amount) => {
        const counter = of(`${ref.scope}#${ref.periodStart}`);
        if (counter.committed + amount > limit) return false;
        counter.committed += amount;
        return true;
      },
      settle: async (ref, reserved, cost) => {
        const counter = of(`${ref.scope}#${ref.periodStart}`);
        counter.committed += cost - reserved;
        counter.spent += cost;
        return { committedMicroUsd: counter.committed, spentMicroUsd: counter.spent };
      },
    };
    return { store, counters };
  }
  const keyBudget = (limitMicroUsd: number): ScopedBudget => ({
    owner: 'key',
    scope: keyBudgetScope('key-1'),
    budget: { limitMicroUsd, period: 'day' },
  });
  const account = (limitMicroUsd: number) => ({
    accountId: 'acct-1',
    keyId: 'key-1',
    budgets: [keyBudget(limitMicroUsd)],
  });
  const spentOf = (ledger: readonly UsageEntry[]) => ledger.reduce((sum, e) => sum + e.costMicroUsd, 0);

  test('a call that fits is sent with the output cap, and the budget ends at what the ledger metered', async () => {
    const budgets = memoryBudgets();
    const h = harness({ 'gpt-5': [{ answer: 'fine' }] }, undefined, budgets.store);
    await h.run({}, { account: account(1_000_000) });
    expect(h.sent.map((r) => r.max_tokens)).toEqual([OUTPUT_CAP_TOKENS]);
    await h.settle();
    const spent = spentOf(h.ledger);
    expect(spent).toBeGreaterThan(0);
    expect([...budgets.counters.values()]).toEqual([{ committed: spent, spent }]);
  });

  test('a call the budget cannot hold is refused before any attempt, nothing reserved', async () => {
    const budgets = memoryBudgets();
    const h = harness({ 'gpt-5': [{ answer: 'never' }] }, undefined, budgets.store);
    const bound = callCostBoundMicroUsd('gpt-5', {
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 100,
    });
    const error = await failureOf(h.run({ max_tokens: 100 }, { account: account(bound - 1) }));
    expect(error).toBeInstanceOf(BudgetError);
    expect(h.calls).toEqual([]);
    await h.settle();
    expect(h.ledger).toEqual([]);
    expect([...budgets.counters.values()]).toEqual([{ committed: 0, spent: 0 }]);
  });

  test('each attempt reserves and settles: a failed attempt gives its reservation back, the fallback is charged', async () => {
    const budgets = memoryBudgets();
    const h = harness(
      { 'gpt-5': [{ fail: overload }], 'claude-sonnet-4-5': [{ answer: 'from claude' }] },
      undefined,
      budgets.store,
    );
    await h.run({ fallback: ['claude'], retries: 0, max_tokens: 50 }, { account: account(1_000_000) });
    expect(h.calls).toEqual(['gpt-5', 'claude-sonnet-4-5']);
    expect(h.sent.map((r) => r.max_tokens)).toEqual([50, 50]);
    await h.settle();
    expect(outcomes(h.ledger)).toEqual(['gpt-5:overload', 'claude-sonnet-4-5:ok']);
    const spent = spentOf(h.ledger);
    expect([...budgets.counters.values()]).toEqual([{ committed: spent, spent }]);
  });

  test('a stream the caller cuts settles to what was metered for it', async () => {
    const budgets = memoryBudgets();
    const h = harness({ 'gpt-5': [{ deltas: ['first'], hang: true }] }, undefined, budgets.store);
    const result = await h.run({ stream: true }, { account: account(1_000_000) });
    if (result.kind !== 'stream') throw new Error('expected a stream');
    const iterator = result.chunks[Symbol.asyncIterator]();
    await iterator.next();
    const pending = iterator.next();
    h.controller.abort(new Error('client left'));
    await failureOf(pending);
    await h.settle();
    expect(outcomes(h.ledger)).toEqual(['gpt-5:client_closed']);
    const spent = spentOf(h.ledger);
    expect(spent).toBeGreaterThan(0);
    expect([...budgets.counters.values()]).toEqual([{ committed: spent, spent }]);
  });

  test('a cache hit reserves nothing', async () => {
    const budgets = memoryBudgets();
    const h = harness({ 'gpt-5': [{ answer: 'once' }] }, undefined, budgets.store);
    await h.run({}, { account: account(1_000_000) });
    await h.settle();
    const before = [...budgets.counters.values()].map((c) => ({ ...c }));
    const hit = await h.run({}, { account: account(1) });
    expect(hit).toMatchObject({ kind: 'whole', cache: 'HIT' });
    await h.settle();
    expect([...budgets.counters.values()]).toEqual(before);
  });
});
