import OpenAI from 'openai';
import { startSimulator, type RunningSimulator, type SimulatorDefinition } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';
import { openRouterSimulator } from '../../../local/simulators/openrouter.js';
import { xaiSimulator } from '../../../local/simulators/xai.js';

/**
 * The OpenAI-compatible simulators as the official `openai` SDK sees them: if the SDK reads
 * an answer, stream or error the way it reads the real upstream's, the fake is faithful.
 */

interface Case {
  readonly name: string;
  readonly definition: SimulatorDefinition;
  readonly prefix: string;
  readonly model: string;
  /** Another model the simulator knows. */
  readonly otherModel: string;
  /** What the SDK makes of a `bad…` key (xAI answers HTTP 400). */
  readonly badKeyError: new (...args: never[]) => Error;
  /** Usage chunk without asking for it (OpenRouter always sends one). */
  readonly usageUnasked: boolean;
}

const CASES: readonly Case[] = [
  {
    name: 'openai',
    definition: openAiSimulator,
    prefix: '/v1',
    model: 'gpt-5',
    otherModel: 'gpt-4o-mini',
    badKeyError: OpenAI.AuthenticationError,
    usageUnasked: false,
  },
  {
    name: 'xai',
    definition: xaiSimulator,
    prefix: '/v1',
    model: 'grok-4',
    otherModel: 'grok-3-mini',
    badKeyError: OpenAI.BadRequestError,
    usageUnasked: false,
  },
  {
    name: 'openrouter',
    definition: openRouterSimulator,
    prefix: '/api/v1',
    model: 'openai/gpt-5',
    otherModel: 'anthropic/claude-sonnet-4.5',
    badKeyError: OpenAI.AuthenticationError,
    usageUnasked: true,
  },
];

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const CLOCK_TOOL = {
  type: 'function' as const,
  function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
};

async function control(sim: RunningSimulator, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${sim.url}/__sim/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

describe.each(CASES)(
  'the $name simulator through the openai SDK',
  ({ definition, prefix, model, otherModel, badKeyError, usageUnasked }) => {
    let sim: RunningSimulator;
    let client: OpenAI;
    const user = (content: string) => [{ role: 'user' as const, content }];

    beforeAll(async () => {
      sim = await startSimulator(definition, 0);
      client = new OpenAI({ baseURL: sim.url + prefix, apiKey: 'sk-sim-test', maxRetries: 0 });
    });
    afterAll(() => sim.close());
    afterEach(() => control(sim, 'DELETE', 'faults'));

    test('answers a chat completion the SDK reads, with consistent usage', async () => {
      const completion = await client.chat.completions.create({
        model,
        messages: user('[sim:reply=Bonjour tout le monde]'),
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(model);
      expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Bonjour tout le monde' });
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      const usage = completion.usage!;
      expect(usage.completion_tokens).toBe(4);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    });

    test('streams through the SDK iterator: role first, text pieces, finish, usage when due', async () => {
      for (const includeUsage of [false, true]) {
        const stream = await client.chat.completions.create({
          model,
          messages: user('[sim:words=5]'),
          stream: true,
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        });
        const chunks = [];
        for await (const chunk of stream) chunks.push(chunk);
        expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
        const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
        expect(text).toBe('word1 word2 word3 word4 word5');
        const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean);
        expect(finishes).toEqual(['stop']);
        const usages = chunks.filter((c) => c.usage);
        expect(usages).toHaveLength(includeUsage || usageUnasked ? 1 : 0);
        if (usages.length) {
          expect(usages[0]!.choices).toEqual([]);
          expect(usages[0]!.usage).toMatchObject({ completion_tokens: 5 });
          expect(chunks.at(-1)).toBe(usages[0]);
        }
      }
    });

    test('answers a tool result in text, even after a user message that asked for a tool', async () => {
      const completion = await client.chat.completions.create({
        model,
        tools: [WEATHER_TOOL],
        messages: [
          ...user('weather [sim:tool]'),
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
      });
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
      expect(completion.choices[0]!.message.content).toMatch(/tool returned: sunny/);
    });

    test('calls tools in parallel, streamed fragments the SDK helper reassembles', async () => {
      const tools = [WEATHER_TOOL, CLOCK_TOOL];
      const plain = await client.chat.completions.create({ model, messages: user('[sim:tools=2]'), tools });
      const calls = plain.choices[0]!.message.tool_calls!;
      expect(plain.choices[0]!.finish_reason).toBe('tool_calls');
      expect(plain.choices[0]!.message.content).toBeNull();
      expect(calls.map((c) => c.type === 'function' && c.function.name)).toEqual(['get_weather', 'get_time']);
      expect(calls.map((c) => c.type === 'function' && JSON.parse(c.function.arguments))).toEqual([
        { city: 'city-value' },
        {},
      ]);
      expect(calls[0]!.id).toMatch(/^call_/);

      const stream = client.chat.completions.stream({ model, messages: user('[sim:tools=2]'), tools });
      const fragments: { index: number; id?: string }[] = [];
      stream.on('chunk', (chunk) => fragments.push(...(chunk.choices[0]?.delta.tool_calls ?? [])));
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.tool_calls).toEqual(calls);
      // Parallel calls interleave: call 1 starts before call 0's arguments are done.
      const order = fragments.map((f) => f.index);
      expect(order.indexOf(1)).toBeLessThan(order.lastIndexOf(0));
      expect(fragments.filter((f) => f.id).map((f) => f.index)).toEqual([0, 1]);
    });

    test('lists models', async () => {
      const ids = [];
      for await (const entry of client.models.list()) ids.push(entry.id);
      expect(ids).toContain(model);
    });

    test('refuses a bad key with its own auth error, and an injected 429 as a rate limit', async () => {
      const stranger = new OpenAI({ baseURL: sim.url + prefix, apiKey: 'bad-key-123', maxRetries: 0 });
      await expect(stranger.chat.completions.create({ model, messages: user('hi') })).rejects.toBeInstanceOf(
        badKeyError,
      );

      await control(sim, 'POST', 'faults', { fault: 'status:429' });
      const error = await client.chat.completions.create({ model, messages: user('hi') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
    });

    test("rejects a request without model or messages in the upstream's own 400 shape", async () => {
      for (const body of [{ messages: user('hi') }, { model }]) {
        const response = await fetch(`${sim.url}${prefix}/chat/completions`, {
          method: 'POST',
          headers: { authorization: 'Bearer sk-sim-test', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(400);
        const error = (await response.json()) as Record<string, any>;
        if (definition === xaiSimulator)
          expect(error).toEqual({ code: 'Client specified an invalid argument', error: expect.any(String) });
        else if (definition === openRouterSimulator)
          expect(error['error']).toMatchObject({ code: 400, message: expect.any(String) });
        else
          expect(error['error']).toMatchObject({
            type: 'invalid_request_error',
            param: 'model' in body ? 'messages' : 'model',
          });
      }
    });

    test('control API: faults count down and expire, scope to a model, and requests are captured', async () => {
      await control(sim, 'DELETE', 'requests');
      expect((await control(sim, 'POST', 'faults', { fault: 'status:503', times: 2 })).faults).toEqual([
        { fault: 'status:503', remaining: 2 },
      ]);
      await expect(client.chat.completions.create({ model, messages: user('one') })).rejects.toBeInstanceOf(
        OpenAI.InternalServerError,
      );
      expect((await control(sim, 'GET', 'faults')).faults).toEqual([{ fault: 'status:503', remaining: 1 }]);
      await expect(client.chat.completions.create({ model, messages: user('two') })).rejects.toBeInstanceOf(
        OpenAI.InternalServerError,
      );
      expect((await control(sim, 'GET', 'faults')).faults).toEqual([]);
      await expect(client.chat.completions.create({ model, messages: user('three') })).resolves.toBeDefined();

      await control(sim, 'POST', 'faults', { fault: 'status:500', model: otherModel });
      await expect(client.chat.completions.create({ model, messages: user('four') })).resolves.toBeDefined();
      expect((await control(sim, 'GET', 'faults')).faults).toEqual([
        { fault: 'status:500', remaining: 1, model: otherModel },
      ]);
      await expect(
        client.chat.completions.create({ model: otherModel, messages: user('five') }),
      ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
      expect((await control(sim, 'GET', 'faults')).faults).toEqual([]);

      const captured = (await control(sim, 'GET', 'requests')).requests as {
        method: string;
        path: string;
        body: any;
        headers: any;
      }[];
      expect(captured.map((r) => r.body.messages[0].content)).toEqual(['one', 'two', 'three', 'four', 'five']);
      expect(captured[0]).toMatchObject({
        method: 'POST',
        path: `${prefix}/chat/completions`,
        body: { model },
        headers: { authorization: 'Bearer sk-sim-test' },
      });
    });
  },
);

describe('provider specifics', () => {
  const sims: Record<string, RunningSimulator> = {};
  const clientOf = (name: string, prefix = '/v1', apiKey = 'sk-sim-test') =>
    new OpenAI({ baseURL: sims[name]!.url + prefix, apiKey, maxRetries: 0 });

  beforeAll(async () => {
    sims['openai'] = await startSimulator(openAiSimulator, 0);
    sims['xai'] = await startSimulator(xaiSimulator, 0);
    sims['openrouter'] = await startSimulator(openRouterSimulator, 0);
  });
  afterAll(() => Promise.all(Object.values(sims).map((sim) => sim.close())));

  test('OpenAI: request id, processing time and six x-ratelimit-* headers that count down', async () => {
    const client = clientOf('openai');
    const first = await client.chat.completions
      .create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const second = await client.chat.completions
      .create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const headers = second.response.headers;
    expect(second.request_id).toMatch(/^req_/);
    expect(Number(headers.get('openai-processing-ms'))).toBeGreaterThan(0);
    for (const kind of ['requests', 'tokens']) {
      for (const part of ['limit', 'remaining', 'reset'])
        expect(headers.get(`x-ratelimit-${part}-${kind}`)).toBeTruthy();
    }
    expect(Number(headers.get('x-ratelimit-remaining-requests'))).toBe(
      Number(first.response.headers.get('x-ratelimit-remaining-requests')) - 1,
    );
    expect(headers.get('x-ratelimit-reset-requests')).toMatch(/^[\d.]+(ms|s)$|^\d+m\d+s$/);
  });

  test('OpenAI: 429 carries retry-after, retry-after-ms and the "try again" text; insufficient_quota is its own 429', async () => {
    const client = clientOf('openai');
    await control(sims['openai']!, 'POST', 'faults', { fault: 'status:429' });
    const limited = (await client.chat.completions
      .create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited.code).toBe('rate_limit_exceeded');
    expect(limited.message).toMatch(/try again in \d+ms/);
    expect(limited.headers.get('retry-after-ms')).toBe('250');
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');

    const broke = (await client.chat.completions
      .create({ model: 'gpt-5', messages: [{ role: 'user', content: '[sim:error=429:insufficient_quota]' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(broke).toBeInstanceOf(OpenAI.RateLimitError);
    expect(broke.code).toBe('insufficient_quota');
    expect(broke.headers.get('retry-after')).toBeNull();
  });

  test('OpenAI: reasoning models refuse max_tokens but take max_completion_tokens; unknown models are 404', async () => {
    const client = clientOf('openai');
    const messages = [{ role: 'user' as const, content: '[sim:words=9]' }];
    await expect(client.chat.completions.create({ model: 'gpt-5', messages, max_tokens: 3 })).rejects.toMatchObject({
      status: 400,
      param: 'max_tokens',
    });
    const cut = await client.chat.completions.create({ model: 'gpt-5', messages, max_completion_tokens: 3 });
    expect(cut.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'word1 word2 word3' } });
    await expect(client.chat.completions.create({ model: 'gpt-0', messages })).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
  });

  test('OpenAI: a mid-stream error event makes the SDK throw', async () => {
    const stream = await clientOf('openai').chat.completions.create({
      model: 'gpt-5',
      messages: [{ role: 'user', content: '[sim:words=6] [sim:midway_error=server_error]' }],
      stream: true,
    });
    const read = async () => {
      for await (const _ of stream);
    };
    await expect(read()).rejects.toMatchObject({ code: 'server_error' });
  });

  test('xAI: {code, error} bodies; an invalid… key gets the 401 variant', async () => {
    const error = await clientOf('xai', '/v1', 'bad-key')
      .chat.completions.create({ model: 'grok-4', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    // The SDK keeps the body's `error` member: for xAI, the message itself.
    expect(error).toMatchObject({ status: 400, error: expect.stringContaining('Incorrect API key') });
    const raw = await fetch(`${sims['xai']!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer bad-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'grok-4', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(await raw.json()).toEqual({
      code: 'Client specified an invalid argument',
      error: expect.stringContaining('Incorrect API key'),
    });
    await expect(
      clientOf('xai', '/v1', 'invalid-key').chat.completions.create({
        model: 'grok-4',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  test('OpenRouter: X-Generation-Id, provider extras, keep-alive comments, generation lookup', async () => {
    const client = clientOf('openrouter', '/api/v1');
    const { data, response } = await client.chat.completions
      .create({ model: 'anthropic/claude-sonnet-4.5', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(response.headers.get('x-generation-id')).toBe(data.id);
    expect(data).toMatchObject({
      provider: 'Anthropic',
      choices: [{ finish_reason: 'stop', native_finish_reason: 'end_turn' }],
    });
    expect((data.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);

    const lookup = await fetch(`${sims['openrouter']!.url}/api/v1/generation?id=${data.id}`, {
      headers: { authorization: 'Bearer sk-sim-test' },
    });
    expect(((await lookup.json()) as any).data).toMatchObject({
      id: data.id,
      tokens_completion: data.usage!.completion_tokens,
    });

    const raw = await fetch(`${sims['openrouter']!.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-sim-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-5:free', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await raw.text();
    expect(text.startsWith(': OPENROUTER PROCESSING\n\n')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  test('OpenRouter: errors carry numeric codes, 402 for credits, X-RateLimit-* only on its own 429s', async () => {
    const client = clientOf('openrouter', '/api/v1');
    const ask = (content: string) =>
      client.chat.completions.create({ model: 'openai/gpt-5', messages: [{ role: 'user', content }] }).then(
        () => {
          throw new Error('expected an error');
        },
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    expect(await ask('[sim:error=402]')).toMatchObject({
      status: 402,
      error: { code: 402, metadata: { error_type: 'payment_required' } },
    });
    const own = await ask('[sim:error=429]');
    expect(own.headers!.get('x-ratelimit-remaining')).toBe('0');
    expect(own.headers!.get('retry-after')).toBe('1');
    const passedOn = await ask('[sim:error=429:upstream]');
    expect(passedOn.headers!.get('x-ratelimit-remaining')).toBeNull();
    expect(passedOn.headers!.get('retry-after')).toBe('1');
    expect(await ask('[sim:error=503]')).toMatchObject({ status: 503 });
    await expect(
      client.chat.completions.create({ model: 'nobody/nothing', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 400,
      error: { availability: { code: 'model_not_found' } },
    });
  });

  test('OpenRouter: mid-stream error chunks with numeric or string codes, and in-choice errors', async () => {
    const client = clientOf('openrouter', '/api/v1');
    for (const code of ['502', 'server_error']) {
      const stream = await client.chat.completions.create({
        model: 'openai/gpt-5',
        messages: [{ role: 'user', content: `[sim:words=6] [sim:midway_error=${code}]` }],
        stream: true,
      });
      const read = async () => {
        for await (const _ of stream);
      };
      await expect(read()).rejects.toMatchObject({ error: { code: code === '502' ? 502 : 'server_error' } });
    }
    const partial = await client.chat.completions.create({
      model: 'openai/gpt-5',
      messages: [{ role: 'user', content: '[sim:words=6] [sim:midway_error=502]' }],
    });
    expect(partial.choices[0]).toMatchObject({
      finish_reason: 'error',
      message: { content: 'word1 word2 word3' },
      error: { code: 502 },
    });
  });
});
