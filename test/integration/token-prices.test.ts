import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { useGateway } from './support/gateway-fixture.js';
import { ledgerEntries, type LedgerEntry } from './support/ledger-entries.js';

/**
 * Cached, cache-write and reasoning tokens priced right, through every wire format, whole and
 * streamed: each simulator reports the parts the directives ask for in its provider's own usage
 * fields (local/simulators/usage-directives.ts), and the ledger entry's tokens and cost must be
 * what this file works out by hand from the providers' list prices, not from the gateway's.
 */
const local = useGateway({
  account: 'token-prices',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});
let client: OpenAI;

beforeAll(() => {
  client = new OpenAI({ apiKey: local.key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
});

/** What the simulated model is asked for: 6 words of answer after 9 of reasoning, and a prompt of which 8 tokens are read from cache, 5 written to the 5-minute cache and 3 to the 1-hour one. */
const ANSWER = 6;
const PARTS = { cache_read: 8, cache_write: 5, cache_write_1h: 3, reasoning: 9 };
const directives = (parts: Record<string, number>) =>
  `[sim:words=${ANSWER}] ${Object.entries(parts)
    .map(([name, n]) => `[sim:${name}=${n}]`)
    .join(' ')} What does this answer cost, all told?`;
/** The same prompt, as long, with every part 0: what the whole prompt counts. */
const PLAIN = directives(Object.fromEntries(Object.keys(PARTS).map((name) => [name, 0])));
const PARTED = directives(PARTS);

/** List prices in micro-USD per million tokens ($3 per million = 3_000_000), from the providers' pages. */
interface ListPrice {
  readonly input: number;
  readonly cacheRead: number;
  /** Writes to the 5-minute cache, and to the 1-hour one: the input price where writing costs nothing extra. */
  readonly cacheWrite: number;
  readonly cacheWrite1h: number;
  readonly output: number;
}

const SONNET: ListPrice = { input: 3e6, cacheRead: 0.3e6, cacheWrite: 3.75e6, cacheWrite1h: 6e6, output: 15e6 };
const noWritePremium = (input: number, cacheRead: number, output: number): ListPrice => ({
  input,
  cacheRead,
  cacheWrite: input,
  cacheWrite1h: input,
  output,
});

/** What each provider reports of the parts asked for (docs/upstreams.md §9, "Usage"). */
interface Reported {
  readonly cached: number;
  /** All the cache writes it reports, and the 1-hour part it tells apart. */
  readonly written: number;
  readonly written1h: number;
  readonly reasoning: number;
}
const READS_AND_REASONING: Reported = { cached: 8, written: 0, written1h: 0, reasoning: 9 };
const NOTHING: Reported = { cached: 0, written: 0, written1h: 0, reasoning: 0 };
const ALL_WRITES = 5 + 3;

interface Case {
  readonly model: string;
  readonly provider: string;
  readonly price: ListPrice;
  readonly reported: Reported;
}

const CASES: Case[] = [
  // Anthropic: input_tokens excludes reads and writes; writes come by time in cache_creation; thinking is output.
  {
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    price: SONNET,
    reported: { cached: 8, written: ALL_WRITES, written1h: 3, reasoning: 9 },
  },
  // OpenRouter passes Anthropic's writes on as one count, cache_write_tokens: priced as 5-minute writes.
  {
    model: 'anthropic/claude-sonnet-4.5',
    provider: 'openrouter',
    price: SONNET,
    reported: { cached: 8, written: ALL_WRITES, written1h: 0, reasoning: 9 },
  },
  // DeepSeek's cache has no write premium: OpenRouter's cache_write_tokens cost input.
  {
    model: 'deepseek/deepseek-v3.2',
    provider: 'openrouter',
    price: noWritePremium(0.28e6, 0.028e6, 0.42e6),
    reported: { cached: 8, written: ALL_WRITES, written1h: 0, reasoning: 9 },
  },
  // OpenAI and xAI: cached_tokens inside prompt_tokens, reasoning_tokens inside completion_tokens, no writes.
  { model: 'gpt-5', provider: 'openai', price: noWritePremium(1.25e6, 0.125e6, 10e6), reported: READS_AND_REASONING },
  { model: 'grok-4', provider: 'xai', price: noWritePremium(3e6, 0.75e6, 15e6), reported: READS_AND_REASONING },
  // Gemini: cachedContentTokenCount inside promptTokenCount; thoughtsTokenCount outside the candidates, billed as output.
  {
    model: 'gemini-2.5-pro',
    provider: 'google',
    price: noWritePremium(1.25e6, 0.125e6, 10e6),
    reported: READS_AND_REASONING,
  },
];

/** The oracle: every token at its list price, summed exactly, rounded half up to a micro-USD once. */
function handCost(price: ListPrice, prompt: number, completion: number, reported: Reported): number {
  const uncached = prompt - reported.cached - reported.written;
  const perMillion =
    uncached * price.input +
    reported.cached * price.cacheRead +
    (reported.written - reported.written1h) * price.cacheWrite +
    reported.written1h * price.cacheWrite1h +
    completion * price.output;
  return Math.floor((perMillion + 500_000) / 1_000_000);
}

/** One call, whole or streamed, with its usage as the caller got it and its one ledger entry. */
async function ask(model: string, content: string, stream: boolean) {
  const options = { headers: { 'X-Cache': 'no-cache' } };
  const messages = [{ role: 'user' as const, content }];
  let usage: OpenAI.CompletionUsage | undefined;
  let requestId: string;
  if (stream) {
    const { data, response } = await client.chat.completions
      .create({ model, messages, stream: true, stream_options: { include_usage: true } }, options)
      .withResponse();
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of data) chunks.push(chunk);
    usage = chunks.at(-1)!.usage ?? undefined;
    requestId = response.headers.get('x-request-id')!;
  } else {
    const { data, response } = await client.chat.completions.create({ model, messages }, options).withResponse();
    usage = data.usage;
    requestId = response.headers.get('x-request-id')!;
  }
  const entries = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
  expect(entries).toHaveLength(1);
  return { usage: usage!, entry: entries[0]! as LedgerEntry & Record<string, unknown> };
}

describe.each(CASES)('$model through $provider', ({ model, provider, price, reported }) => {
  test.each([
    ['whole', false],
    ['streamed', true],
  ])('%s: the parts of the tokens are recorded and each is priced at its list price', async (_mode, stream) => {
    // The prompt's whole count, from the same prompt with nothing cached.
    const plain = await ask(model, PLAIN, stream);
    const prompt = plain.usage.prompt_tokens;
    expect(prompt).toBeGreaterThan(PARTS.cache_read + PARTS.cache_write + PARTS.cache_write_1h);
    expect(plain.entry.costMicroUsd).toBe(handCost(price, prompt, ANSWER, NOTHING));

    const { usage, entry } = await ask(model, PARTED, stream);
    const completion = ANSWER + reported.reasoning;
    // The caller's usage keeps OpenAI's meaning: the parts are inside the two counts.
    expect(usage).toMatchObject({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: {
        cached_tokens: reported.cached,
        ...(reported.written > 0 ? { cache_write_tokens: reported.written } : {}),
        ...(reported.written1h > 0 ? { cache_write_1h_tokens: reported.written1h } : {}),
      },
      completion_tokens_details: { reasoning_tokens: reported.reasoning },
    });
    expect(entry).toMatchObject({
      model,
      provider,
      promptTokens: prompt,
      completionTokens: completion,
      cachedTokens: reported.cached,
      reasoningTokens: reported.reasoning,
      estimated: false,
      costMicroUsd: handCost(price, prompt, completion, reported),
    });
    // A part the provider did not report is not in the entry at all.
    expect(entry['cacheWriteTokens']).toBe(reported.written > 0 ? reported.written : undefined);
    expect(entry['cacheWrite1hTokens']).toBe(reported.written1h > 0 ? reported.written1h : undefined);
  });
});
