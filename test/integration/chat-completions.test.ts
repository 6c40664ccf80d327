import OpenAI from 'openai';
import { useGateway } from './support/gateway-fixture.js';
import { adminKey, provisionAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { SimulatorControl, simulatedReply } from './support/simulators.js';

const local = useGateway({ account: 'chat', key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } } });
let client: OpenAI;

beforeAll(() => {
  client = new OpenAI({ apiKey: local.key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
});

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe.each([
  ['gpt', 'gpt-5', 'openai'],
  ['claude', 'claude-sonnet-4-5', 'anthropic'],
  ['gemini', 'gemini-2.5-pro', 'google'],
  ['grok', 'grok-4', 'xai'],
  ['deepseek', 'deepseek/deepseek-v3.2', 'openrouter'],
])('%s through the official openai SDK', (alias, model, provider) => {
  test('a non-streamed answer, its headers and its ledger entry', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: alias,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: `hello ${alias}` },
        ],
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe(model);
    expect(data.choices[0]!.message.content).toMatch(simulatedReply(model, `hello ${alias}`));
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
    expect(response.headers.get('x-model-used')).toBe(model);
    expect(response.headers.get('x-retry-count')).toBe('0');
    expect(response.headers.get('x-cache')).toBe('MISS');
    expect(response.headers.get('x-ratelimit-limit')).toBe('10000');
    const requestId = response.headers.get('x-request-id')!;
    const [entry, ...more] = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({
      model,
      provider,
      promptTokens: data.usage!.prompt_tokens,
      completionTokens: data.usage!.completion_tokens,
      estimated: false,
      cached: false,
      outcome: 'ok',
    });
    expect(entry!.costMicroUsd).toBeGreaterThan(0);
  });

  test('a streamed answer: role first, the same text, the usage chunk, the same cost', async () => {
    const content = `stream ${alias}`;
    const stream = await client.chat.completions.create({
      model: alias,
      messages: [{ role: 'user', content }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.filter((c) => c.choices[0]?.delta.role)).toHaveLength(1);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toMatch(simulatedReply(model, content));
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const usage = chunks.at(-1)!.usage!;
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);

    const plain = await client.chat.completions.create(
      { model: alias, messages: [{ role: 'user', content }] },
      { headers: { 'X-Cache': 'no-cache' } },
    );
    expect(usage).toMatchObject({
      prompt_tokens: plain.usage!.prompt_tokens,
      completion_tokens: plain.usage!.completion_tokens,
    });
  });

  test('parallel tool calls, streamed and not, reassemble to the same calls', async () => {
    const request = {
      model: alias,
      messages: [{ role: 'user' as const, content: 'weather please [sim:tools=2]' }],
      tools: [weatherTool],
    };
    const whole = await client.chat.completions.create(request);
    expect(whole.choices[0]!.finish_reason).toBe('tool_calls');
    const calls = whole.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(2);
    for (const toolCall of calls) {
      expect(toolCall.type).toBe('function');
      if (toolCall.type === 'function') expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: 'city-value' });
    }
    const streamed = await client.chat.completions.stream({ ...request, stream: true }).finalChatCompletion();
    expect(
      streamed.choices[0]!.message.tool_calls!.map((c) =>
        c.type === 'function' ? [c.function.name, c.function.arguments] : [],
      ),
    ).toEqual(calls.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : [])));
  });
});

describe('temperature (docs/interface.md §2.2: default 0.7)', () => {
  /** Where each wire format carries the temperature. */
  const sentTemperature: Record<string, (body: any) => unknown> = {
    openai: (body) => body.temperature,
    anthropic: (body) => body.temperature,
    google: (body) => body.generationConfig?.temperature,
  };

  test.each([
    ['gpt', 'openai'],
    ['claude', 'anthropic'],
    ['gemini', 'google'],
  ])('%s (%s wire format): omitted is sent as 0.7, an explicit 0 as 0', async (alias, provider) => {
    const simulator = SimulatorControl.of(local.gateway, provider);
    const sent = async (extra: Record<string, unknown>) => {
      await simulator.reset();
      const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
        headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
        body: { model: alias, messages: [{ role: 'user', content: `temperature ${JSON.stringify(extra)}` }], ...extra },
      });
      expect(answer.status).toBe(200);
      const [request, ...more] = await simulator.requests();
      expect(more).toEqual([]);
      return sentTemperature[provider]!(request!.body);
    };
    expect(await sent({})).toBe(0.7);
    expect(await sent({ temperature: null })).toBe(0.7);
    expect(await sent({ temperature: 0 })).toBe(0);
    expect(await sent({ temperature: 0.3 })).toBe(0.3);
  });
});

describe('cache', () => {
  const ask = (content: string, headers: Record<string, string> = {}) =>
    call(local.gateway.url('/api/v1/chat/completions'), {
      headers: { ...bearer(local.key), ...headers },
      body: { model: 'grok', messages: [{ role: 'user', content }] },
    });

  test('a repeat is a HIT that reaches no upstream and costs nothing', async () => {
    const xai = SimulatorControl.of(local.gateway, 'xai');
    await xai.reset();
    const first = await ask('cache me');
    expect(first.headers.get('x-cache')).toBe('MISS');
    await new Promise((done) => setTimeout(done, 200)); // the store happens after the response
    const second = await ask('cache me');
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.body.choices).toEqual(first.body.choices);
    expect(second.body.id).not.toBe(first.body.id);
    expect(await xai.requests()).toHaveLength(1);
    const [entry] = await ledgerEntries(local.gateway, local.account.accountId, second.headers.get('x-request-id')!, 1);
    expect(entry).toMatchObject({ cached: true, costMicroUsd: 0, outcome: 'cache_hit', model: 'grok-4' });
    expect(entry!.promptTokens).toBe(first.body.usage.prompt_tokens);
  });

  test('X-Cache: no-cache skips the read', async () => {
    await ask('fresh please');
    await new Promise((done) => setTimeout(done, 200));
    expect((await ask('fresh please', { 'X-Cache': 'no-cache' })).headers.get('x-cache')).toBe('MISS');
  });

  test('answers with tool calls are BYPASS and never stored', async () => {
    const body = { model: 'grok', messages: [{ role: 'user', content: 'tool [sim:tool]' }], tools: [weatherTool] };
    const first = await call(local.gateway.url('/api/v1/chat/completions'), { headers: bearer(local.key), body });
    expect(first.headers.get('x-cache')).toBe('BYPASS');
    await new Promise((done) => setTimeout(done, 200));
    expect(
      (await call(local.gateway.url('/api/v1/chat/completions'), { headers: bearer(local.key), body })).headers.get(
        'x-cache',
      ),
    ).toBe('BYPASS');
  });

  test('X-Cache-TTL sets the lifetime, and expiry is checked on read', async () => {
    await ask('short lived', { 'X-Cache-TTL': '1' });
    await new Promise((done) => setTimeout(done, 200));
    expect((await ask('short lived')).headers.get('x-cache')).toBe('HIT');
    await new Promise((done) => setTimeout(done, 2_000));
    expect((await ask('short lived')).headers.get('x-cache')).toBe('MISS');
  });

  test('an answer too large for an item is served but not stored', async () => {
    const big = await ask('[sim:words=60000]');
    expect(big.status).toBe(200);
    expect(big.text.length).toBeGreaterThan(400_000);
    await new Promise((done) => setTimeout(done, 300));
    const again = await ask('[sim:words=60000]');
    expect(again.headers.get('x-cache')).toBe('MISS');
  });

  test('entries are scoped to the account', async () => {
    await ask('shared question');
    await new Promise((done) => setTimeout(done, 200));
    const other = await provisionAccount(local.gateway, 'other');
    const otherKey = (await adminKey(local.gateway, { accountId: other.accountId, type: 'secret' })).key;
    const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: bearer(otherKey),
      body: { model: 'grok', messages: [{ role: 'user', content: 'shared question' }] },
    });
    expect(answer.headers.get('x-cache')).toBe('MISS');
  });

  test.each(['0', '86401', 'soon', '-5'])('X-Cache-TTL %s is a 400 naming the header', async (ttl) => {
    const answer = await ask('ttl', { 'X-Cache-TTL': ttl });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'BAD_REQUEST',
      param: 'X-Cache-TTL',
      type: 'invalid_request_error',
    });
  });
});

describe('bad input', () => {
  test.each([
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
    [{ model: 'gpt' }, 'messages'],
    [{ model: 'gpt', messages: [] }, 'messages'],
    [{ model: 'nope', messages: [{ role: 'user', content: 'x' }] }, 'model'],
    [{ model: 'gpt', messages: [{ role: 'user', content: 'x' }], temperature: 2.5 }, 'temperature'],
    [{ model: 'gpt', messages: [{ role: 'user', content: 'x' }], retries: 6 }, 'retries'],
    [{ model: 'gpt', messages: [{ role: 'user', content: 'x' }], timeout: 300001 }, 'timeout'],
    [{ model: 'gpt', messages: [{ role: 'user', content: 'x' }], fallback: ['nope'] }, 'fallback[0]'],
    [{ model: 'gpt', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
  ])('%j is a 400 naming %s, in the OpenAI error shape', async (body, param) => {
    const answer = await call(local.gateway.url('/api/v1/chat/completions'), { headers: bearer(local.key), body });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'BAD_REQUEST', param });
  });

  test.each([
    [
      { tool_choice: 'maybe' },
      'tool_choice',
      'must be one of none, auto, required, or {"type": "function", "function": {"name": …}}',
    ],
    [
      { load_balance: { strategy: 'random', targets: [{ model: 'gpt' }] } },
      'load_balance.strategy',
      'must be one of weighted, round-robin, least-latency',
    ],
    [
      { guardrails: { enabled: ['pii', 'spam'] } },
      'guardrails.enabled[1]',
      'must be one of pii, content_moderation, schema_validation',
    ],
    [
      { messages: [{ role: 'wizard', content: 'x' }] },
      'messages[0].role',
      'must be one of system, developer, user, assistant, tool',
    ],
  ])('an enum refusal (%j) lists the allowed values', async (extra, param, rule) => {
    const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: bearer(local.key),
      body: { model: 'gpt', messages: [{ role: 'user', content: 'x' }], ...extra },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param, message: `${param}: ${rule}` });
  });

  test('the openai SDK surfaces a 400 as BadRequestError with the param', async () => {
    const error = await client.chat.completions
      .create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('model');
  });
});
