import type { ProviderId } from '../../../lambdas/catalog/model-catalog.js';
import {
  createEmbeddings,
  RETRIES_PER_ROUTE,
  type EmbeddingsDeps,
  type EmbeddingsInput,
} from '../../../lambdas/embeddings/embeddings-core.js';
import { EmbeddingsError } from '../../../lambdas/embeddings/embeddings-errors.js';
import type { TransportRequest, TransportResponse } from '../../../lambdas/providers/http-transport.js';
import type { CachedAnswer } from '../../../lambdas/store/cached-answers.js';
import type { BudgetStore } from '../../../lambdas/usage/budget-holds.js';
import type { UsageEntry } from '../../../lambdas/usage/usage-ledger.js';

/**
 * The embeddings core against a scripted upstream: each call to `send` answers the next scripted
 * reply, and what the core sent, metered, reserved and cached is read back.
 */

interface Scripted {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

function scriptedUpstream(replies: Scripted[]) {
  const sent: (TransportRequest & { json: any })[] = [];
  const send = async (request: TransportRequest): Promise<TransportResponse> => {
    sent.push({ ...request, json: JSON.parse(request.body!) });
    const reply = replies.shift();
    if (!reply) throw new Error('no reply scripted');
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    const headers = reply.headers ?? {};
    return {
      status: reply.status,
      headers: { get: (name) => headers[name.toLowerCase()] ?? null, has: (name) => name.toLowerCase() in headers },
      body: (async function* () {
        yield Buffer.from(text);
      })(),
      text: async () => text,
    };
  };
  return { sent, send };
}

const openAiAnswer = (vectors: number[][], tokens?: number) => ({
  object: 'list',
  data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
  model: 'text-embedding-3-small',
  ...(tokens === undefined ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
});
const vector = (n: number, value = 0.5) => Array<number>(n).fill(value);

interface Harness {
  readonly deps: EmbeddingsDeps;
  readonly entries: UsageEntry[];
  readonly sleeps: number[];
  readonly stored: { hash: string; answer: Omit<CachedAnswer, 'expiresAt'> }[];
  readonly reserved: number[];
  readonly settled: number[];
  readonly sent: (TransportRequest & { json: any })[];
  run(
    body: EmbeddingsInput['body'],
    overrides?: Partial<EmbeddingsInput>,
  ): Promise<Awaited<ReturnType<typeof createEmbeddings>>>;
}

function harness(
  replies: Scripted[],
  options: { providers?: ProviderId[]; cached?: CachedAnswer; budgeted?: boolean } = {},
): Harness {
  const { sent, send } = scriptedUpstream(replies);
  const entries: UsageEntry[] = [];
  const sleeps: number[] = [];
  const stored: Harness['stored'] = [];
  const reserved: number[] = [];
  const settled: number[] = [];
  const providers = options.providers ?? ['openai', 'openrouter', 'google'];
  const budgetStore: BudgetStore = {
    reserve: async (_ref, _limit, amount) => {
      reserved.push(amount);
      return true;
    },
    settle: async (_ref, _reserved, cost) => {
      settled.push(cost);
      return { committedMicroUsd: cost, spentMicroUsd: cost };
    },
  };
  const deps: EmbeddingsDeps = {
    endpointsFor: () => async (provider) =>
      providers.includes(provider) ? { baseUrl: `https://${provider}.test`, apiKey: `key-${provider}` } : undefined,
    send,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    readAnswer: async () => options.cached,
    storeAnswer: async (_account, hash, answer) => {
      stored.push({ hash, answer });
      return true;
    },
    recordUsage: async (entry) => void entries.push(entry),
    budgetStore,
    now: () => new Date('2026-11-27T12:00:00Z'),
  };
  return {
    deps,
    entries,
    sleeps,
    stored,
    reserved,
    settled,
    sent,
    async run(body, overrides = {}) {
      const deferred: (() => Promise<void>)[] = [];
      try {
        return await createEmbeddings(
          {
            body,
            account: {
              accountId: 'acct',
              keyId: 'key',
              budgets: options.budgeted
                ? [{ owner: 'key', scope: 'KEY#key', budget: { limitMicroUsd: 1_000_000, period: 'day' } }]
                : [],
            },
            requestId: 'req-1',
            route: 'embeddings',
            startedAt: new Date('2026-11-27T12:00:00Z'),
            cache: { read: true, ttlSeconds: 60 },
            signal: new AbortController().signal,
            defer: (task) => void deferred.push(task),
            ...overrides,
          },
          deps,
        );
      } finally {
        for (const task of deferred) await task();
      }
    },
  };
}

async function failure(run: () => Promise<unknown>): Promise<EmbeddingsError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof EmbeddingsError) return error;
  throw new Error(`expected an EmbeddingsError, got ${String(error)}`);
}

it('answers OpenAI’s list, meters one entry at the list price, and stores the answer', async () => {
  const h = harness([{ status: 200, body: openAiAnswer([vector(1536), vector(1536, 0.25)], 2_000_000) }]);
  const result = await h.run({ model: 'text-embedding-3-small', input: ['a', 'b'] });
  expect(result).toMatchObject({ cache: 'MISS', servedBy: 'text-embedding-3-small', retries: 0 });
  expect(result.body.usage).toEqual({ prompt_tokens: 2_000_000, total_tokens: 2_000_000 });
  expect(result.body.data.map((d) => d.index)).toEqual([0, 1]);
  // 2,000,000 tokens at $0.02 per million: $0.04.
  expect(h.entries).toMatchObject([{ model: 'text-embedding-3-small', costMicroUsd: 40_000, estimated: false }]);
  expect(h.sent[0]!.url).toBe('https://openai.test/embeddings');
  expect(h.sent[0]!.json).toEqual({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' });
  expect(h.stored).toHaveLength(1);
  expect(JSON.parse(h.stored[0]!.answer.body)).toEqual(result.body);
});

it('reserves each call’s greatest cost (its UTF-8 bytes at the input rate) and settles it to the metered cost', async () => {
  const h = harness([{ status: 200, body: openAiAnswer([vector(3072)], 10) }], { budgeted: true });
  await h.run({ model: 'text-embedding-3-large', input: 'é'.repeat(30_000) });
  // 60,000 bytes at $0.13 per million: 7,800 micro-USD reserved; 10 tokens cost 1.3, metered as 1.
  expect(h.reserved).toEqual([7_800]);
  expect(h.settled).toEqual([1]);
});

it('retries transient failures with backoff, then fails over to the next route, metering every call', async () => {
  const h = harness([
    { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } },
    { status: 200, body: { object: 'list', data: [] } },
    { status: 500, body: { error: { message: 'boom', type: 'server_error' } } },
    { status: 200, body: openAiAnswer([vector(1536)], 3) },
  ]);
  const result = await h.run({ model: 'text-embedding-3-small', input: 'x' });
  expect(result).toMatchObject({ servedBy: 'openai/text-embedding-3-small', fallbackFrom: 'text-embedding-3-small' });
  expect(result.retries).toBe(RETRIES_PER_ROUTE);
  expect(result.body.model).toBe('text-embedding-3-small');
  expect(h.sent.map((r) => r.url)).toEqual([
    'https://openai.test/embeddings',
    'https://openai.test/embeddings',
    'https://openai.test/embeddings',
    'https://openrouter.test/embeddings',
  ]);
  expect(h.sent[3]!.json.model).toBe('openai/text-embedding-3-small');
  expect(h.entries.map((e) => [e.provider, e.status, e.outcome, e.costMicroUsd])).toEqual([
    ['openai', 503, 'overload', 0],
    ['openai', 200, 'malformed', 0],
    ['openai', 500, 'overload', 0],
    ['openrouter', 200, 'ok', 0],
  ]);
  expect(h.sleeps).toEqual([125, 250]); // full jitter at 0.5 of 250 ms, then of 500 ms
});

it('a provider’s long retry hint moves on without waiting; rate limited everywhere is 429 with the shortest hint', async () => {
  const limited = (seconds: number): Scripted => ({
    status: 429,
    body: { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } },
    headers: { 'retry-after': String(seconds) },
  });
  const h = harness([limited(30), limited(20)], { providers: ['openai', 'openrouter'] });
  const error = await failure(() => h.run({ model: 'text-embedding-3-small', input: 'x' }));
  expect(error.kind).toBe('rate_limited');
  expect(error.retryAfterMs).toBe(20_000);
  expect(h.sleeps).toEqual([]);
});

it('an upstream’s refusal of the input is a 400 naming input, not retried or failed over', async () => {
  const h = harness([
    {
      status: 400,
      body: {
        error: { message: 'maximum context length is 8192 tokens', type: 'invalid_request_error', param: 'input' },
      },
    },
  ]);
  const error = await failure(() => h.run({ model: 'text-embedding-3-small', input: 'x' }));
  expect(error).toMatchObject({ kind: 'invalid_request', field: 'input' });
  expect(h.sent).toHaveLength(1);
});

it('a route whose provider lacks the model is passed over for the next, not blamed on the input', async () => {
  const h = harness([
    {
      status: 404,
      body: { error: { message: 'The model does not exist', type: 'invalid_request_error', code: 'model_not_found' } },
    },
    { status: 200, body: openAiAnswer([vector(1536)], 1) },
  ]);
  const result = await h.run({ model: 'text-embedding-3-small', input: 'x' });
  expect(result).toMatchObject({ servedBy: 'openai/text-embedding-3-small', retries: 0 });
  expect(h.entries.map((e) => [e.provider, e.status])).toEqual([
    ['openai', 404],
    ['openrouter', 200],
  ]);
});

it('without a configured provider, the request is unavailable and nothing is sent', async () => {
  const h = harness([], { providers: [] });
  const error = await failure(() => h.run({ model: 'gemini-embedding-001', input: 'x' }));
  expect(error.kind).toBe('unavailable');
  expect(h.sent).toHaveLength(0);
});

it('Gemini: batches of 100, unit-length vectors, tokens estimated and flagged when unreported', async () => {
  const gemini = (count: number): Scripted => ({
    status: 200,
    body: { embeddings: Array.from({ length: count }, () => ({ values: [3, 4, ...Array<number>(126).fill(0)] })) },
  });
  const h = harness([gemini(100), gemini(20)], { providers: ['google'] });
  const texts = Array.from({ length: 120 }, (_, i) => `text number ${i}`);
  const result = await h.run({ model: 'gemini-embedding-001', input: texts, dimensions: 128 });
  expect(h.sent.map((r) => [r.url, r.json.requests.length])).toEqual([
    ['https://google.test/models/gemini-embedding-001:batchEmbedContents', 100],
    ['https://google.test/models/gemini-embedding-001:batchEmbedContents', 20],
  ]);
  expect(h.sent[0]!.headers['x-goog-api-key']).toBe('key-google');
  expect(result.body.data[119]!.embedding.slice(0, 2)).toEqual([0.6, 0.8]);
  expect(h.entries.map((e) => e.estimated)).toEqual([true, true]);
  // ceil(chars / 4) a text: "text number 7" is 4 tokens, "text number 42" 4, "text number 100" 4.
  expect(result.body.usage.prompt_tokens).toBe(120 * 4);
});

it('reads base64 vectors of the right length and refuses ones of the wrong length', async () => {
  const good = Buffer.alloc(1536 * 4).toString('base64');
  const short = Buffer.alloc(1535 * 4).toString('base64');
  const ok = harness([{ status: 200, body: openAiAnswer([good as unknown as number[]], 1) }]);
  const answer = await ok.run({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'base64' });
  expect(answer.body.data[0]!.embedding).toBe(good);
  const bad = harness(
    Array.from({ length: 6 }, () => ({ status: 200, body: openAiAnswer([short as unknown as number[]], 1) })),
  );
  expect(
    (await failure(() => bad.run({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'base64' }))).kind,
  ).toBe('unavailable');
  expect(bad.entries.every((e) => e.outcome === 'malformed')).toBe(true);
});

it('a cache hit is one free cache_hit entry and no upstream call; write:false stores nothing', async () => {
  const body = openAiAnswer([vector(1536)], 7);
  const cached: CachedAnswer = {
    body: JSON.stringify(body),
    model: 'text-embedding-3-small',
    provider: 'openai',
    expiresAt: 0,
  };
  const hit = harness([], { cached });
  const result = await hit.run({ model: 'text-embedding-3-small', input: 'x' });
  expect(result).toMatchObject({ cache: 'HIT', body });
  expect(hit.entries).toMatchObject([{ cached: true, outcome: 'cache_hit', costMicroUsd: 0, promptTokens: 7 }]);
  expect(hit.sent).toHaveLength(0);

  const unstored = harness([{ status: 200, body: openAiAnswer([vector(1536)], 7) }]);
  await unstored.run(
    { model: 'text-embedding-3-small', input: 'x' },
    { cache: { read: false, write: false, ttlSeconds: 60 } },
  );
  expect(unstored.stored).toHaveLength(0);
});

it('stops when the caller leaves, with the caller’s reason, metering the call as client_closed', async () => {
  const caller = new AbortController();
  const h = harness([]);
  h.deps.send = async (request) => {
    caller.abort(new Error('client left'));
    throw request.signal.reason;
  };
  await expect(h.run({ model: 'text-embedding-3-small', input: 'x' }, { signal: caller.signal })).rejects.toThrow(
    'client left',
  );
  expect(h.entries).toMatchObject([{ outcome: 'client_closed', costMicroUsd: 0 }]);
});
