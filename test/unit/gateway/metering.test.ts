import { resolveFamily } from '../../../lambdas/catalog/index.js';
import { Meter } from '../../../lambdas/gateway/metering.js';
import type { Target } from '../../../lambdas/gateway/targets.js';

const meter = () =>
  new Meter({
    requestId: 'req-1',
    accountId: 'acc-1',
    route: 'chat-completions',
    at: new Date('2026-07-01T00:00:00Z'),
  });
const target = (model: string): Target => ({
  provider: 'openrouter',
  model,
  family: resolveFamily('gpt')!,
  requested: 'gpt',
});
const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };

test('an attempt on a model with a catalog price is priced', () => {
  const m = meter();
  m.attempt({ target: target('openai/gpt-5'), durationMs: 1, usage });
  expect(m.recorded[0]).toMatchObject({ costMicroUsd: 6_250, priced: true });
});

test('an attempt on a model the catalog cannot price costs 0 and says so', () => {
  const m = meter();
  m.attempt({ target: target('acme/unlisted-model'), durationMs: 1, usage });
  expect(m.recorded[0]).toMatchObject({ costMicroUsd: 0, priced: false, promptTokens: 1000, completionTokens: 500 });
});

test('a cache hit is free by rule, so its cost is known', () => {
  const m = meter();
  m.cacheHit('acme/unlisted-model', 'openrouter', usage);
  expect(m.recorded[0]).toMatchObject({ costMicroUsd: 0, priced: true, cached: true });
});
