/**
 * List prices per concrete upstream model id, in integer micro-USD per 1M tokens
 * (1_250_000 = $1.25 per million tokens). Data plus pure cost functions. The figures are
 * the providers' published standard-tier prices at the time of writing and feed the usage
 * endpoint's *estimated* cost.
 *
 * A call's prompt is priced in parts (docs/finance.md, "How a token entry is priced"): tokens
 * read from the provider's prompt cache at the cached rate, tokens written to it at the
 * cache-write rate (Anthropic's explicit caching: 1.25x input for the 5-minute cache, 2x for the
 * 1-hour one), the rest at the input rate. OpenAI's, xAI's and Gemini's implicit caching charge
 * nothing extra to write, so their prices name no write rate and a write costs input. Reasoning
 * (thinking) tokens are already inside the completion tokens every adapter reports and cost
 * output once. Not modelled: long-context surcharges (e.g. Gemini above 200k prompt tokens), the
 * hourly storage of Gemini's explicit caches, and batch discounts.
 */

import { EMBEDDING_PRICES } from './embedding-models.js';

export interface ModelPrice {
  /** Uncached prompt tokens, micro-USD per 1M. */
  readonly inputPerMTok: number;
  /** Completion tokens (including reasoning tokens), micro-USD per 1M. */
  readonly outputPerMTok: number;
  /** Prompt tokens served from the provider's cache; when absent they cost `inputPerMTok`. */
  readonly cachedInputPerMTok?: number;
  /** Prompt tokens written to a 5-minute cache; when absent they cost `inputPerMTok`. */
  readonly cacheWritePerMTok?: number;
  /** Prompt tokens written to a 1-hour cache; when absent they cost `cacheWritePerMTok` (or input). */
  readonly cacheWrite1hPerMTok?: number;
}

export interface TokenUsage {
  /** All prompt tokens, cached ones included (the OpenAI `prompt_tokens` convention). */
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** The part of `promptTokens` read from cache; clamped to `[0, promptTokens]`. */
  readonly cachedTokens?: number;
  /** The part of `promptTokens` written to cache, for any time; clamped to what the reads leave. */
  readonly cacheWriteTokens?: number;
  /** The part of `cacheWriteTokens` written to a 1-hour cache; clamped to `[0, cacheWriteTokens]`. */
  readonly cacheWrite1hTokens?: number;
  /** The part of `completionTokens` spent reasoning: informational, never priced again. */
  readonly reasoningTokens?: number;
}

export interface Cost {
  /** Integer micro-USD, never negative; 0 when `priced` is false. */
  readonly microUsd: number;
  /** False when the model has no price in the catalog. */
  readonly priced: boolean;
}

/** Optional rates: cached reads, and Anthropic's cache writes (5-minute and 1-hour). */
interface CacheRates {
  readonly cachedInputPerMTok?: number;
  readonly cacheWritePerMTok?: number;
  readonly cacheWrite1hPerMTok?: number;
}

const price = (inputPerMTok: number, outputPerMTok: number, cache: CacheRates | number = {}): ModelPrice => {
  const rates = typeof cache === 'number' ? { cachedInputPerMTok: cache } : cache;
  return Object.freeze({ inputPerMTok, outputPerMTok, ...rates });
};

/** Anthropic's published multipliers of the input price: reads 0.1x, 5-minute writes 1.25x, 1-hour writes 2x. */
const anthropicCache = (inputPerMTok: number): CacheRates => ({
  cachedInputPerMTok: inputPerMTok / 10,
  cacheWritePerMTok: (inputPerMTok * 5) / 4,
  cacheWrite1hPerMTok: inputPerMTok * 2,
});

export const PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  // OpenAI
  'gpt-5': price(1_250_000, 10_000_000, 125_000),
  'openai/gpt-5': price(1_250_000, 10_000_000, 125_000),
  // Anthropic: $0.30 cache reads, $3.75 5-minute and $6 1-hour cache writes (OpenRouter passes them on)
  'claude-sonnet-4-5': price(3_000_000, 15_000_000, anthropicCache(3_000_000)),
  'anthropic/claude-sonnet-4.5': price(3_000_000, 15_000_000, anthropicCache(3_000_000)),
  // Google (prompts up to 200k tokens)
  'gemini-2.5-pro': price(1_250_000, 10_000_000, 125_000),
  'google/gemini-2.5-pro': price(1_250_000, 10_000_000, 125_000),
  // xAI
  'grok-4': price(3_000_000, 15_000_000, 750_000),
  'x-ai/grok-4': price(3_000_000, 15_000_000, 750_000),
  // Open-weight and other families via OpenRouter
  'deepseek/deepseek-v3.2': price(280_000, 420_000, 28_000),
  'qwen/qwen3-235b-a22b-2507': price(130_000, 600_000),
  'mistralai/mistral-medium-3.1': price(400_000, 2_000_000),
  'moonshotai/kimi-k2-0905': price(600_000, 2_500_000, 150_000),
  'meta-llama/llama-4-scout': price(80_000, 300_000),
  // Amazon Bedrock, on demand (docs/upstreams.md, "Amazon Bedrock": which figures were verified).
  // Claude through the global inference profile: Anthropic's own rates and cache multipliers.
  'global.anthropic.claude-sonnet-4-5-20250929-v1:0': price(3_000_000, 15_000_000, anthropicCache(3_000_000)),
  // Nova Pro: $0.80 in, $3.20 out, cache reads $0.20 (writes cost nothing extra).
  'amazon.nova-pro-v1:0': price(800_000, 3_200_000, 200_000),
  // Embedding models, input only (embedding-models.ts)
  ...EMBEDDING_PRICES,
});

/** Dated snapshot suffixes upstreams echo back: `-2025-08-07` (OpenAI) or `-20250929` (Anthropic). */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The price of a model id: exact match first, then the same id without a dated snapshot
 * suffix (upstreams answer `gpt-5` requests with `model: "gpt-5-2025-08-07"`).
 */
export function priceOf(model: string): ModelPrice | undefined {
  if (Object.hasOwn(PRICES, model)) return PRICES[model];
  const undated = model.replace(SNAPSHOT_SUFFIX, '');
  return undated !== model && Object.hasOwn(PRICES, undated) ? PRICES[undated] : undefined;
}

/** A token count as a non-negative integer (bad input counts as 0). */
function tokens(n: number | undefined): number {
  return n === undefined || !Number.isFinite(n) || n <= 0 ? 0 : Math.floor(n);
}

/** A TokenUsage's counts as whole, non-negative numbers, each part within its whole. */
export interface TokenParts {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly reasoningTokens: number;
}

/**
 * The counts a call is priced by: bad counts read as 0, and the parts are clamped so they
 * never add up to more than their whole (reads first, then writes, then their 1-hour part),
 * so no token is priced twice.
 */
export function tokenParts(usage: TokenUsage): TokenParts {
  const promptTokens = tokens(usage.promptTokens);
  const completionTokens = tokens(usage.completionTokens);
  const cachedTokens = Math.min(tokens(usage.cachedTokens), promptTokens);
  const cacheWriteTokens = Math.min(tokens(usage.cacheWriteTokens), promptTokens - cachedTokens);
  return {
    promptTokens,
    completionTokens,
    cachedTokens,
    cacheWriteTokens,
    cacheWrite1hTokens: Math.min(tokens(usage.cacheWrite1hTokens), cacheWriteTokens),
    reasoningTokens: Math.min(tokens(usage.reasoningTokens), completionTokens),
  };
}

const PER_MILLION = 1_000_000n;

/**
 * Estimated cost of one call in integer micro-USD, rounded half up. Computed exactly in
 * integers: sum(tokens x micro-USD-per-1M) / 1M, over the parts of the prompt (cache reads,
 * 1-hour and 5-minute cache writes, the rest) and the completion (tokenParts).
 */
export function costMicroUsd(model: string, usage: TokenUsage): Cost {
  const p = priceOf(model);
  if (p === undefined) return { microUsd: 0, priced: false };
  const parts = tokenParts(usage);
  const prompt = BigInt(parts.promptTokens);
  const cached = BigInt(parts.cachedTokens);
  const written = BigInt(parts.cacheWriteTokens);
  const written1h = BigInt(parts.cacheWrite1hTokens);
  const input = BigInt(p.inputPerMTok);
  const writeRate = BigInt(p.cacheWritePerMTok ?? p.inputPerMTok);
  const scaled =
    (prompt - cached - written) * input +
    cached * BigInt(p.cachedInputPerMTok ?? p.inputPerMTok) +
    (written - written1h) * writeRate +
    written1h * BigInt(p.cacheWrite1hPerMTok ?? writeRate) +
    BigInt(parts.completionTokens) * BigInt(p.outputPerMTok);
  const microUsd = (scaled + PER_MILLION / 2n) / PER_MILLION;
  return { microUsd: Number(microUsd), priced: true };
}
