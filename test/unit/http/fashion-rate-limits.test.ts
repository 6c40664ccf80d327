import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { lease } from '../../../lambdas/store/rate-limit-windows.js';
import { admitFashionRequest, fashionLimitError } from '../../../lambdas/http/fashion-rate-limits.js';

/** Spec 8's fashion limits per key, counted in the shared window store (dynalite), on a fake clock. */
let now = 1_800_000_000_000;
const deps = { lease, now: () => now };

useLocalDynamoDb('flimits');

async function admitMany(endpoint: 'run' | 'subscribe' | 'status', key: string, count: number) {
  const results = [];
  for (let i = 0; i < count; i++) results.push(await admitFashionRequest(endpoint, key, deps));
  return results;
}

test('run: 30 per 60 s per key, then 429 with Retry-After until the window ends', async () => {
  const results = await admitMany('run', 'key-run', 31);
  expect(results.slice(0, 30).every((r) => r.allowed)).toBe(true);
  expect(results[29]!.headers).toEqual({
    'X-RateLimit-Limit': '30',
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(Math.ceil((now + 60_000) / 1000)),
  });
  const refused = results[30]!;
  expect(refused.allowed).toBe(false);
  expect(refused.headers['Retry-After']).toBe('60');
  const error = fashionLimitError('run', refused);
  expect([error.status, error.code, error.headers['Retry-After']]).toEqual([429, 'RATE_LIMIT_EXCEEDED', '60']);
  expect(error.message).toMatch(/30 requests per 60 s/);
  // Another key, and subscribe for the same key, have windows of their own.
  expect((await admitFashionRequest('run', 'key-other', deps)).allowed).toBe(true);
  expect((await admitFashionRequest('subscribe', 'key-run', deps)).allowed).toBe(true);
  now += 20_000;
  expect((await admitFashionRequest('run', 'key-run', deps)).headers['Retry-After']).toBe('40');
  now += 40_000;
  expect((await admitFashionRequest('run', 'key-run', deps)).allowed).toBe(true);
});

test('status: 40 per 10 s', async () => {
  const results = await admitMany('status', 'key-status', 41);
  expect(results.filter((r) => r.allowed)).toHaveLength(40);
  expect(results[40]!.headers['Retry-After']).toBe('10');
  now += 10_000;
  expect((await admitFashionRequest('status', 'key-status', deps)).allowed).toBe(true);
});
