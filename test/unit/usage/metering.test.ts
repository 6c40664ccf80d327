import { resolveFamily } from '../../../lambdas/catalog/model-catalog.js';
import { Meter } from '../../../lambdas/usage/metering.js';
import type { Target } from '../../../lambdas/chat/targets.js';

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

test('an entry records the parts of its tokens and is priced by them; parts that are none are not there', () => {
  const m = meter();
  m.attempt({
    target: target('anthropic/claude-sonnet-4.5'),
    durationMs: 1,
    usage: {
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 400, cache_write_tokens: 300, cache_write_1h_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 200 },
    },
  });
  m.attempt({ target: target('anthropic/claude-sonnet-4.5'), durationMs: 1, usage });
  const [parted, plain] = m.recorded;
  // Per token, in micro-USD: input 3, cache read 0.3, 5-minute write 3.75, 1-hour write 6, output 15.
  expect(parted).toMatchObject({
    promptTokens: 1000,
    completionTokens: 500,
    cachedTokens: 400,
    cacheWriteTokens: 300,
    cacheWrite1hTokens: 100,
    reasoningTokens: 200,
    costMicroUsd: 300 * 3 + 400 * 0.3 + 200 * 3.75 + 100 * 6 + 500 * 15,
  });
  expect(plain!.costMicroUsd).toBe(1000 * 3 + 500 * 15);
  for (const part of ['cachedTokens', 'cacheWriteTokens', 'cacheWrite1hTokens', 'reasoningTokens'])
    expect(plain).not.toHaveProperty(part);
});

test('parts beyond their whole are recorded as priced: clamped to it', () => {
  const m = meter();
  m.attempt({
    target: target('openai/gpt-5'),
    durationMs: 1,
    usage: {
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
      prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 50 },
      completion_tokens_details: { reasoning_tokens: 30 },
    },
  });
  expect(m.recorded[0]).toMatchObject({ cachedTokens: 80, cacheWriteTokens: 20, reasoningTokens: 10 });
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

test('usage tags become flat fields of every entry; tags that are not set are not there at all', () => {
  const tagged = new Meter({
    requestId: 'ses_1/r1/claude/vote',
    accountId: 'acc-1',
    route: 'fight',
    at: new Date('2026-07-01T00:00:00Z'),
    tags: { sessionId: 'ses_1', round: 1, agent: 'claude', purpose: 'vote' },
  });
  tagged.attempt({ target: target('openai/gpt-5'), durationMs: 1, usage });
  tagged.cacheHit('openai/gpt-5', 'openrouter', usage);
  for (const entry of tagged.recorded) {
    expect(entry).toMatchObject({ sessionId: 'ses_1', round: 1, agent: 'claude', purpose: 'vote' });
  }

  const partly = new Meter({
    requestId: 'req-2',
    accountId: 'acc-1',
    route: 'battle',
    at: new Date('2026-07-01T00:00:00Z'),
    tags: { sessionId: 'ses_2', round: undefined },
  });
  partly.attempt({ target: target('openai/gpt-5'), durationMs: 1, usage });
  expect(partly.recorded[0]).toMatchObject({ sessionId: 'ses_2' });
  for (const name of ['round', 'agent', 'purpose']) expect(Object.keys(partly.recorded[0]!)).not.toContain(name);
  const untagged = meter();
  untagged.attempt({ target: target('openai/gpt-5'), durationMs: 1, usage });
  for (const name of ['sessionId', 'round', 'agent', 'purpose'])
    expect(Object.keys(untagged.recorded[0]!)).not.toContain(name);
});

test('work in units is priced from the unit catalog and carries its unit and quantity, not tokens', () => {
  const m = meter();
  m.work({
    model: 'minimax/speech-2.6-hd',
    provider: 'minimax',
    unit: 'characters',
    quantity: 2_345,
    status: 200,
    outcome: 'ok',
  });
  // $100 per million characters: 2,345 characters cost 234,500 micro-USD.
  expect(m.recorded[0]).toMatchObject({
    unit: 'characters',
    quantity: 2_345,
    promptTokens: 0,
    completionTokens: 0,
    costMicroUsd: 234_500,
    priced: true,
    estimated: false,
  });
});

test('work the catalog prices in another unit, or not at all, is unpriced; a stated cost wins', () => {
  const m = meter();
  m.work({
    model: 'minimax/speech-2.6-hd',
    provider: 'minimax',
    unit: 'songs',
    quantity: 1,
    status: 200,
    outcome: 'ok',
  });
  m.work({ model: 'acme/unlisted', provider: 'acme', unit: 'credits', quantity: 3, status: 200, outcome: 'ok' });
  m.work({
    model: 'fashn/credit',
    provider: 'fashn',
    unit: 'credits',
    quantity: 0,
    status: 200,
    outcome: 'failed',
    cost: { microUsd: 0, priced: true },
  });
  expect(m.recorded.map((entry) => [entry.costMicroUsd, entry.priced])).toEqual([
    [0, false],
    [0, false],
    [0, true],
  ]);
});

test("an attempt's entry keeps its timings in whole milliseconds; a cache hit has none", () => {
  const m = meter();
  m.attempt({ target: target('openai/gpt-5'), durationMs: 812.6, firstTokenMs: 95.2, usage });
  m.attempt({ target: target('openai/gpt-5'), durationMs: 40, failure: { status: 429, kind: 'rate_limit' } });
  m.cacheHit('openai/gpt-5', 'openrouter', usage);
  const [streamed, failed, hit] = m.recorded;
  expect(streamed).toMatchObject({ durationMs: 813, firstTokenMs: 95 });
  expect(failed).toMatchObject({ durationMs: 40 });
  expect(failed).not.toHaveProperty('firstTokenMs');
  expect(hit).not.toHaveProperty('durationMs');
  expect(hit).not.toHaveProperty('firstTokenMs');
});
