/**
 * Exponential backoff with full jitter: a random wait in [0, min(cap, base * 2^attempt)],
 * so retries from many clients spread out instead of arriving together. An upstream's own
 * retry hint wins when it gives one.
 */
export const BACKOFF_BASE_MS = 250;
export const BACKOFF_CAP_MS = 8_000;

export function backoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
