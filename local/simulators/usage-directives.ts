/**
 * How the simulated model's prompt and answer divide into the parts providers bill differently,
 * from the directives `[sim:cache_read=N]` (N prompt tokens read from the provider's prompt
 * cache), `[sim:cache_write=N]` (N written to its 5-minute cache), `[sim:cache_write_1h=N]`
 * (N written to its 1-hour cache) and `[sim:reasoning=N]` (N tokens of reasoning before the
 * answer). Without them nothing is cached and nothing reasoned. Each simulator reports the
 * parts its provider reports, in its own fields (docs/upstreams.md §9, "Usage").
 *
 * The cache parts are parts of the script's prompt count, taken in that order and clamped so
 * they never exceed it: the prompt's total is the same with or without them. Reasoning is
 * extra output (the visible answer's count is unchanged), at most MAX_REASONING_TOKENS. A
 * value that is not a whole number is ignored.
 */

export interface TokenParts {
  /** Prompt tokens read from the provider's prompt cache. */
  readonly cacheRead: number;
  /** Prompt tokens written to a 5-minute cache. */
  readonly cacheWrite5m: number;
  /** Prompt tokens written to a 1-hour cache. */
  readonly cacheWrite1h: number;
  /** Output tokens spent reasoning, beyond the answer's own. */
  readonly reasoning: number;
}

export const MAX_REASONING_TOKENS = 1_000_000;

export const NO_TOKEN_PARTS: TokenParts = Object.freeze({
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
});

/** The parts the directives of a request ask for, within its prompt of `promptTokens`. */
export function tokenPartsOf(directives: ReadonlyMap<string, string>, promptTokens: number): TokenParts {
  const cacheRead = Math.min(whole(directives.get('cache_read')), promptTokens);
  const cacheWrite5m = Math.min(whole(directives.get('cache_write')), promptTokens - cacheRead);
  const cacheWrite1h = Math.min(whole(directives.get('cache_write_1h')), promptTokens - cacheRead - cacheWrite5m);
  return {
    cacheRead,
    cacheWrite5m,
    cacheWrite1h,
    reasoning: Math.min(whole(directives.get('reasoning')), MAX_REASONING_TOKENS),
  };
}

function whole(value: string | undefined): number {
  return value !== undefined && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : 0;
}
