import { backoffMs, BACKOFF_BASE_MS, BACKOFF_CAP_MS } from '../../../lambdas/chat/backoff.js';

test('full jitter: between 0 and base * 2^attempt, capped', () => {
  expect(backoffMs(0, undefined, () => 0.999)).toBe(Math.floor(0.999 * BACKOFF_BASE_MS));
  expect(backoffMs(2, undefined, () => 0.5)).toBe(Math.floor(0.5 * BACKOFF_BASE_MS * 4));
  expect(backoffMs(20, undefined, () => 0.999)).toBeLessThan(BACKOFF_CAP_MS);
  expect(backoffMs(3, undefined, () => 0)).toBe(0);
});

test('the upstream’s retry hint wins', () => {
  expect(backoffMs(0, 1500, () => 0.9)).toBe(1500);
});
