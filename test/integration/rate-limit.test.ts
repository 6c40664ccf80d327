import { adminKey } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({ account: 'limits' });

const models = (key: string) => call(local.gateway.url('/api/v1/models'), { headers: bearer(key) });

test('3× rateLimit concurrent requests: exactly rateLimit succeed, the rest 429 with Retry-After', async () => {
  const rateLimit = 20;
  const { key } = await adminKey(local.gateway, { accountId: local.account.accountId, type: 'secret', rateLimit });
  const answers = await Promise.all(Array.from({ length: 3 * rateLimit }, () => models(key)));
  const ok = answers.filter((a) => a.status === 200);
  const limited = answers.filter((a) => a.status === 429);
  expect(ok).toHaveLength(rateLimit);
  expect(limited).toHaveLength(2 * rateLimit);
  for (const answer of limited) {
    expect(answer.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', type: 'rate_limit_error' });
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(rateLimit));
  }
  // Every success saw a distinct remaining count: one shared, exact counter.
  const remaining = ok.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
  expect(remaining).toEqual(Array.from({ length: rateLimit }, (_, i) => i));
}, 30_000);

test('the headers count down and the reset is one window ahead', async () => {
  const { key } = await adminKey(local.gateway, { accountId: local.account.accountId, type: 'secret', rateLimit: 3 });
  const before = Math.floor(Date.now() / 1000);
  const seen: string[] = [];
  let reset = '';
  for (let i = 0; i < 4; i++) {
    const answer = await models(key);
    seen.push(`${answer.status}:${answer.headers.get('x-ratelimit-remaining')}`);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('3');
    reset ||= answer.headers.get('x-ratelimit-reset')!;
    expect(answer.headers.get('x-ratelimit-reset')).toBe(reset);
  }
  expect(seen).toEqual(['200:2', '200:1', '200:0', '429:0']);
  expect(Number(reset)).toBeGreaterThanOrEqual(before + 59);
  expect(Number(reset)).toBeLessThanOrEqual(before + 61);
});

test('limits are per key: another key of the same account is unaffected', async () => {
  const first = await adminKey(local.gateway, { accountId: local.account.accountId, type: 'secret', rateLimit: 1 });
  const second = await adminKey(local.gateway, { accountId: local.account.accountId, type: 'secret', rateLimit: 1 });
  expect((await models(first.key)).status).toBe(200);
  expect((await models(first.key)).status).toBe(429);
  expect((await models(second.key)).status).toBe(200);
});

test('unauthenticated and public routes carry no rate headers; limited ones always do', async () => {
  expect((await call(local.gateway.url('/api/health'))).headers.get('x-ratelimit-limit')).toBeNull();
  const usage = await call(local.gateway.url('/api/v1/usage'), { headers: { 'X-API-Key': local.gateway.info.apiKey } });
  expect(usage.status).toBe(200);
  expect(usage.headers.get('x-ratelimit-limit')).toBe('600');
  expect(usage.headers.get('x-ratelimit-remaining')).not.toBeNull();
  expect(usage.headers.get('x-ratelimit-reset')).toMatch(/^\d{10}$/);
});

test('a limit above 1,000 a minute is counted in shards: exactly the limit per window, and the headers stay consistent', async () => {
  const rateLimit = 1_001;
  const { key } = await adminKey(local.gateway, { accountId: local.account.accountId, type: 'secret', rateLimit });
  const answers: Awaited<ReturnType<typeof models>>[] = [];
  // Until a refusal: a run that straddles a window boundary spends some of the limit in each
  // window, so a fixed count can end before either is used up (at most three windows' worth).
  let refused = false;
  const workers = Array.from({ length: 25 }, async () => {
    while (!refused && answers.length < 3 * rateLimit) {
      const answer = await models(key);
      answers.push(answer);
      if (answer.status === 429) refused = true;
    }
  });
  await Promise.all(workers);
  // A sharded window is a fixed minute (offset per key), so this run may straddle two.
  const byWindow = new Map<string, { ok: number; limited: number }>();
  for (const answer of answers) {
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(rateLimit));
    const reset = answer.headers.get('x-ratelimit-reset')!;
    const window = byWindow.get(reset) ?? { ok: 0, limited: 0 };
    if (answer.status === 200) window.ok++;
    else {
      expect(answer.status).toBe(429);
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
      window.limited++;
    }
    byWindow.set(reset, window);
  }
  expect([...byWindow.values()].some((w) => w.limited > 0)).toBe(true);
  for (const { ok, limited } of byWindow.values()) {
    expect(ok).toBeLessThanOrEqual(rateLimit);
    // One gateway process holds no blocks another could leave unused: a refusal means the limit was used up.
    if (limited > 0) expect(ok).toBe(rateLimit);
  }
  const remaining = answers.filter((a) => a.status === 200).map((a) => Number(a.headers.get('x-ratelimit-remaining')));
  expect(Math.max(...remaining)).toBeLessThan(rateLimit);
  expect(Math.min(...remaining)).toBeGreaterThanOrEqual(0);
}, 60_000);
