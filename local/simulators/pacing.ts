/**
 * How fast the simulated model writes, from the directives `[sim:first_token_ms=N]` (the wait
 * before the first token) and `[sim:token_ms=N]` (the wait between two tokens), so benchmarks
 * can run against upstreams that take as long as real ones. Without them a simulator answers
 * at once. Values above the bounds are clamped to them, and one answer (whole or streamed)
 * waits MAX_ANSWER_PACING_MS at most in all, so no caller can park a request in a simulator;
 * a value that is not a whole number of milliseconds is ignored.
 */

export interface Pacing {
  /** Milliseconds before the first token (before a stream's first event). */
  readonly firstTokenMs: number;
  /** Milliseconds between two tokens of a stream. */
  readonly tokenMs: number;
}

export const MAX_FIRST_TOKEN_MS = 10_000;
export const MAX_TOKEN_MS = 1_000;
export const MAX_ANSWER_PACING_MS = 60_000;

export const NO_PACING: Pacing = Object.freeze({ firstTokenMs: 0, tokenMs: 0 });

/** The pacing the directives of a request ask for. */
export function pacingOf(directives: ReadonlyMap<string, string>): Pacing {
  return {
    firstTokenMs: boundedMs(directives.get('first_token_ms'), MAX_FIRST_TOKEN_MS),
    tokenMs: boundedMs(directives.get('token_ms'), MAX_TOKEN_MS),
  };
}

export const isPaced = (pacing: Pacing): boolean => pacing.firstTokenMs > 0 || pacing.tokenMs > 0;

/** A whole (non-streamed) answer is sent once all of it would have been written. */
export function wholeAnswerMs(turn: { readonly pacing: Pacing; readonly completionTokens: number }): number {
  const { firstTokenMs, tokenMs } = turn.pacing;
  return Math.min(MAX_ANSWER_PACING_MS, firstTokenMs + tokenMs * turn.completionTokens);
}

function boundedMs(value: string | undefined, max: number): number {
  if (value === undefined || !/^\d+$/.test(value.trim())) return 0;
  return Math.min(max, Number(value.trim()));
}
