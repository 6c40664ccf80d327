/**
 * List prices per concrete upstream model id, in integer micro-USD per 1M tokens
 * (1_250_000 = $1.25 per million tokens). Data plus one pure cost function. The figures are
 * the providers' published standard-tier prices at the time of writing and feed the usage
 * endpoint's *estimated* cost: long-context surcharges (e.g. Gemini above 200k prompt tokens),
 * cache-write premiums and batch discounts are not modelled.
 */

export interface ModelPrice {
  /** Uncached prompt tokens, micro-USD per 1M. */
  readonly inputPerMTok: number;
  /** Completion tokens (including reasoning tokens), micro-USD per 1M. */
  readonly outputPerMTok: number;
  /** Prompt tokens served from the provider's cache; when absent they cost `inputPerMTok`. */
  readonly cachedInputPerMTok?: number;
}

export interface TokenUsage {
  /** All prompt tokens, cached ones included (the OpenAI `prompt_tokens` convention). */
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** The part of `promptTokens` read from cache; clamped to `[0, promptTokens]`. */
  readonly cachedTokens?: number;
}

export interface Cost {
  /** Integer micro-USD, never negative; 0 when `priced` is false. */
  readonly microUsd: number;
  /** False when the model has no price in the catalog. */
  readonly priced: boolean;
}

const price = (inputPerMTok: number, outputPerMTok: number, cachedInputPerMTok?: number): ModelPrice =>
  Object.freeze(
    cachedInputPerMTok === undefined
      ? { inputPerMTok, outputPerMTok }
      : { inputPerMTok, outputPerMTok, cachedInputPerMTok },
  );

export const PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  // OpenAI
  'gpt-5': price(1_250_000, 10_000_000, 125_000),
  'openai/gpt-5': price(1_250_000, 10_000_000, 125_000),
  // Anthropic (cache reads; cache writes are billed as input here)
  'claude-sonnet-4-5': price(3_000_000, 15_000_000, 300_000),
  'anthropic/claude-sonnet-4.5': price(3_000_000, 15_000_000, 300_000),
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
function tokens(n: number | undefined): bigint {
  if (n === undefined || !Number.isFinite(n) || n <= 0) return 0n;
  return BigInt(Math.floor(n));
}

const PER_MILLION = 1_000_000n;

/**
 * Estimated cost of one call in integer micro-USD, rounded half up. Computed exactly in
 * integers: sum(tokens x micro-USD-per-1M) / 1M.
 */
export function costMicroUsd(model: string, usage: TokenUsage): Cost {
  const p = priceOf(model);
  if (p === undefined) return { microUsd: 0, priced: false };
  const prompt = tokens(usage.promptTokens);
  const completion = tokens(usage.completionTokens);
  let cached = tokens(usage.cachedTokens);
  if (cached > prompt) cached = prompt;
  const cachedRate = BigInt(p.cachedInputPerMTok ?? p.inputPerMTok);
  const scaled =
    (prompt - cached) * BigInt(p.inputPerMTok) + cached * cachedRate + completion * BigInt(p.outputPerMTok);
  const microUsd = (scaled + PER_MILLION / 2n) / PER_MILLION;
  return { microUsd: Number(microUsd), priced: true };
}
