import { LoadBalancer } from '../../../lambdas/chat/load-balancer.js';
import { planTargets, targetKey } from '../../../lambdas/chat/targets.js';
import type { GatewayChatRequest } from '../../../lambdas/chat/chat-request.js';
import { ChatError } from '../../../lambdas/chat/chat-errors.js';

const request = (extra: Partial<GatewayChatRequest>): GatewayChatRequest => ({
  model: 'gpt',
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const keys = (r: GatewayChatRequest, balancer = new LoadBalancer(() => 0)) => planTargets(r, balancer).map(targetKey);

test('a family alias goes to its routes in catalog order', () => {
  expect(keys(request({}))).toEqual(['openai:gpt-5', 'openrouter:openai/gpt-5']);
});

test('a concrete route model pins that route first', () => {
  expect(keys(request({ model: 'openai/gpt-5' }))).toEqual(['openrouter:openai/gpt-5', 'openai:gpt-5']);
});

test('body fallbacks come before the catalog’s other routes', () => {
  expect(keys(request({ fallback: ['claude', 'deepseek'] }))).toEqual([
    'openai:gpt-5',
    'anthropic:claude-sonnet-4-5',
    'openrouter:deepseek/deepseek-v3.2',
    'openrouter:openai/gpt-5',
    'openrouter:anthropic/claude-sonnet-4.5',
    'bedrock:global.anthropic.claude-sonnet-4-5-20250929-v1:0',
  ]);
});

test('load_balance targets lead, in the strategy’s order, and the model follows', () => {
  const balancer = new LoadBalancer(() => 0);
  const lb = request({ load_balance: { strategy: 'round-robin', targets: [{ model: 'claude' }, { model: 'grok' }] } });
  expect(keys(lb, balancer).slice(0, 3)).toEqual(['anthropic:claude-sonnet-4-5', 'xai:grok-4', 'openai:gpt-5']);
  expect(keys(lb, balancer).slice(0, 3)).toEqual(['xai:grok-4', 'anthropic:claude-sonnet-4-5', 'openai:gpt-5']);
});

test.each([
  [{ model: 'nope' }, 'model'],
  [{ fallback: ['claude', 'nope'] }, 'fallback[1]'],
  [{ load_balance: { strategy: 'weighted' as const, targets: [{ model: 'nope' }] } }, 'load_balance.targets[0].model'],
])('unknown names are a 400 naming the field: %j', (extra, field) => {
  try {
    planTargets(request(extra), new LoadBalancer());
    throw new Error('expected a 400');
  } catch (error) {
    expect(error).toBeInstanceOf(ChatError);
    expect((error as ChatError).field).toBe(field);
  }
});

describe('LoadBalancer', () => {
  const targets = [
    { key: 'a', weight: 1 },
    { key: 'b', weight: 3 },
  ];

  test('weighted picks in proportion to weight', () => {
    let i = 0;
    const sequence = Array.from({ length: 400 }, (_, n) => (n + 0.5) / 400);
    const balancer = new LoadBalancer(() => sequence[i++ % sequence.length]!);
    const firsts = Array.from({ length: 400 }, () => balancer.order('weighted', targets)[0]!.key);
    expect(firsts.filter((k) => k === 'b').length).toBe(300);
  });

  test('least-latency tries unmeasured targets first, then the fastest', () => {
    const balancer = new LoadBalancer();
    balancer.observe('a', 50);
    expect(balancer.order('least-latency', targets).map((t) => t.key)).toEqual(['b', 'a']);
    balancer.observe('b', 200);
    expect(balancer.order('least-latency', targets).map((t) => t.key)).toEqual(['a', 'b']);
    for (let i = 0; i < 10; i++) balancer.observe('a', 1000);
    expect(balancer.order('least-latency', targets).map((t) => t.key)).toEqual(['b', 'a']);
    expect(balancer.averageLatency('a')).toBeGreaterThan(900);
  });
});
