import { callMetrics, routingMetrics } from '../../../lambdas/observability/call-metrics.js';
import type { MetricRecord } from '../../../lambdas/observability/metric-names.js';
import { boundedModel, usageMetrics } from '../../../lambdas/observability/usage-metrics.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';

const entry = (overrides: Partial<UsageEntry> = {}): UsageEntry => ({
  requestId: 'req-1',
  sequence: 0,
  accountId: 'acct',
  route: 'chat-completions',
  model: 'gpt-5',
  provider: 'openai',
  promptTokens: 12,
  completionTokens: 30,
  costMicroUsd: 315,
  priced: true,
  estimated: false,
  cached: false,
  status: 200,
  outcome: 'ok',
  at: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

const named = (records: MetricRecord[], name: string) => records.filter((record) => record.name === name);
const byModel = { 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-5' };

test('an answered streamed attempt: duration and time to first chunk in seconds, tokens by type, cost', () => {
  const records = usageMetrics(entry(), { durationMs: 1500, firstTokenMs: 250 });
  expect(named(records, 'gen_ai.client.operation.duration')).toEqual([
    { name: 'gen_ai.client.operation.duration', unit: 'Seconds', value: 1.5, dimensions: byModel },
  ]);
  expect(named(records, 'gen_ai.client.operation.time_to_first_chunk')).toEqual([
    { name: 'gen_ai.client.operation.time_to_first_chunk', unit: 'Seconds', value: 0.25, dimensions: byModel },
  ]);
  expect(named(records, 'gen_ai.client.token.usage')).toEqual([
    {
      name: 'gen_ai.client.token.usage',
      unit: 'Count',
      value: 12,
      dimensions: { ...byModel, 'gen_ai.token.type': 'input' },
    },
    {
      name: 'gen_ai.client.token.usage',
      unit: 'Count',
      value: 30,
      dimensions: { ...byModel, 'gen_ai.token.type': 'output' },
    },
  ]);
  expect(named(records, 'gateway.cost.micro_usd')).toEqual([
    { name: 'gateway.cost.micro_usd', unit: 'None', value: 315, dimensions: byModel },
  ]);
  expect(named(records, 'gateway.upstream.errors').map((record) => record.value)).toEqual([0]);
  expect(named(records, 'gateway.upstream.requests').map((record) => record.value)).toEqual([1]);
});

test('upstream failures count as errors by provider; a caller leaving does not', () => {
  const failed = usageMetrics(entry({ outcome: 'rate_limit', status: 429, promptTokens: 0, completionTokens: 0 }));
  expect(named(failed, 'gateway.upstream.errors')).toEqual([
    { name: 'gateway.upstream.errors', unit: 'Count', value: 1, dimensions: { 'gen_ai.provider.name': 'openai' } },
  ]);
  expect(named(failed, 'gen_ai.client.token.usage')).toEqual([]);
  const left = usageMetrics(entry({ outcome: 'client_closed' }));
  expect(named(left, 'gateway.upstream.errors').map((record) => record.value)).toEqual([0]);
});

test('a cache hit is a hit by route, not an upstream request', () => {
  const records = usageMetrics(entry({ cached: true, outcome: 'cache_hit', costMicroUsd: 0 }));
  expect(named(records, 'gateway.cache.hits')).toEqual([
    { name: 'gateway.cache.hits', unit: 'Count', value: 1, dimensions: { route: 'chat-completions' } },
  ]);
  expect(named(records, 'gateway.upstream.requests')).toEqual([]);
  expect(named(records, 'gateway.cost.micro_usd')).toEqual([]);
});

test('models outside the catalog are filed as other: dimension values stay bounded', () => {
  expect(boundedModel('gpt-5')).toBe('gpt-5');
  expect(boundedModel('minimax/speech-2.6-hd')).toBe('minimax/speech-2.6-hd');
  expect(boundedModel('anything-a-caller-typed')).toBe('other');
  const records = usageMetrics(entry({ model: 'made-up' }), { durationMs: 10 });
  expect(new Set(records.map((record) => record.dimensions['gen_ai.request.model']).filter(Boolean))).toEqual(
    new Set(['other']),
  );
});

test('a call: one request, its status class and its duration, by route and overall', () => {
  const served = callMetrics('search', 200, 42);
  expect(served.map((record) => [record.name, record.value])).toEqual([
    ['gateway.requests', 1],
    ['gateway.requests.4xx', 0],
    ['gateway.requests.5xx', 0],
    ['gateway.request.duration', 42],
    ['gateway.request.duration', 42],
  ]);
  expect(served.at(-1)!.dimensions).toEqual({});
  expect(named(callMetrics('search', 503, 1), 'gateway.requests.5xx')[0]!.value).toBe(1);
  expect(named(callMetrics('search', 429, 1), 'gateway.requests.4xx')[0]!.value).toBe(1);
  // A 401 is also counted under no dimension, for the auth-failure alarm; nothing else is.
  expect(named(callMetrics('search', 401, 1), 'gateway.requests.unauthorized')).toEqual([
    { name: 'gateway.requests.unauthorized', unit: 'Count', value: 1, dimensions: {} },
  ]);
  expect(named(callMetrics('search', 403, 1), 'gateway.requests.unauthorized')).toEqual([]);
});

test('routing: retries, a fallback, a cache miss', () => {
  const records = routingMetrics('chat-completions', { retries: 2, fallbackFrom: 'gpt', cache: 'MISS' });
  expect(records.map((record) => [record.name, record.value])).toEqual([
    ['gateway.retries', 2],
    ['gateway.fallbacks', 1],
    ['gateway.cache.misses', 1],
  ]);
  expect(routingMetrics('chat-completions', { retries: 0, cache: 'HIT' }).map((record) => record.value)).toEqual([
    0, 0,
  ]);
});
