import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { routes } from '../../../lib/routes.js';
import { lease } from '../../../lambdas/store/rate-limit-windows.js';
import { admitRouteRequest, routeLimitError } from '../../../lambdas/http/route-limits.js';

/** docs/interface.md §8's fashion limits per key, counted in the shared window store (dynalite), on a fake clock. */
let now = 1_800_000_000_000;
const deps = { lease, now: () => now };

useLocalDynamoDb('flimits');

const limitOf = (id: string) => routes.find((route) => route.id === id)!.perKeyLimit!;
const admit = (id: string, key: string) => admitRouteRequest(id, limitOf(id), key, deps);

async function admitMany(id: string, key: string, count: number) {
  const results = [];
  for (let i = 0; i < count; i++) results.push(await admit(id, key));
  return results;
}

test('the manifest gives the fashion routes docs/interface.md §8’s limits', () => {
  expect(limitOf('fashion-run')).toEqual({ requests: 30, windowSeconds: 60 });
  expect(limitOf('fashion-subscribe')).toEqual({ requests: 30, windowSeconds: 60 });
  expect(limitOf('fashion-status')).toEqual({ requests: 40, windowSeconds: 10 });
});

test('run: 30 per 60 s per key, then 429 with Retry-After until the window ends', async () => {
  const results = await admitMany('fashion-run', 'key-run', 31);
  expect(results.slice(0, 30).every((r) => r.allowed)).toBe(true);
  expect(results[29]!.headers).toEqual({
    'X-RateLimit-Limit': '30',
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(Math.ceil((now + 60_000) / 1000)),
  });
  const refused = results[30]!;
  expect(refused.allowed).toBe(false);
  expect(refused.headers['Retry-After']).toBe('60');
  const error = routeLimitError(limitOf('fashion-run'), refused);
  expect([error.status, error.code, error.headers['Retry-After']]).toEqual([429, 'RATE_LIMIT_EXCEEDED', '60']);
  expect(error.message).toMatch(/30 requests per 60 s/);
  // Another key, and subscribe for the same key, have windows of their own.
  expect((await admit('fashion-run', 'key-other')).allowed).toBe(true);
  expect((await admit('fashion-subscribe', 'key-run')).allowed).toBe(true);
  now += 20_000;
  expect((await admit('fashion-run', 'key-run')).headers['Retry-After']).toBe('40');
  now += 40_000;
  expect((await admit('fashion-run', 'key-run')).allowed).toBe(true);
});

test('status: 40 per 10 s', async () => {
  const results = await admitMany('fashion-status', 'key-status', 41);
  expect(results.filter((r) => r.allowed)).toHaveLength(40);
  expect(results[40]!.headers['Retry-After']).toBe('10');
  now += 10_000;
  expect((await admit('fashion-status', 'key-status')).allowed).toBe(true);
});
