import type { ProviderId } from '../../../lambdas/catalog/model-catalog.js';
import type { UpstreamTarget } from '../../../lambdas/providers/chat-adapter.js';
import { openAiCompatibleAdapter as adapter } from '../../../lambdas/providers/openai-compatible/openai-compatible-adapter.js';
import { quirksFor } from '../../../lambdas/providers/openai-compatible/openai-compatible-quirks.js';
import type { ChatCompletionChunk, ChatRequest, ToolCallDelta } from '../../../lambdas/providers/chat-types.js';
import { completeOnce, streamOnce } from '../../../lambdas/providers/upstream-call.js';
import { UpstreamError, type UpstreamFailure } from '../../../lambdas/providers/upstream-failure.js';
import { startSimulator, type RunningSimulator, type SimulatorDefinition } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';
import { openRouterSimulator } from '../../../local/simulators/openrouter.js';
import { xaiSimulator } from '../../../local/simulators/xai.js';

/**
 * The OpenAI-compatible adapter both ways, through the gateway's real HTTP path
 * (`completeOnce` / `streamOnce`) against each upstream's simulator on loopback.
 */

interface Case {
  readonly provider: ProviderId;
  readonly definition: SimulatorDefinition;
  readonly prefix: string;
  readonly model: string;
  /** The upstream's own retry hint on an injected 429. */
  readonly retryAfterMs: number;
}

const CASES: readonly Case[] = [
  { provider: 'openai', definition: openAiSimulator, prefix: '/v1', model: 'gpt-5', retryAfterMs: 250 },
  { provider: 'xai', definition: xaiSimulator, prefix: '/v1', model: 'grok-4', retryAfterMs: 1000 },
  {
    provider: 'openrouter',
    definition: openRouterSimulator,
    prefix: '/api/v1',
    model: 'openai/gpt-5',
    retryAfterMs: 1000,
  },
];

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const CLOCK = {
  type: 'function' as const,
  function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
};

async function failureOf(work: Promise<unknown>): Promise<UpstreamFailure> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
}

describe.each(CASES)(
  'the openai-compatible adapter against the $provider simulator',
  ({ provider, definition, prefix, model, retryAfterMs }) => {
    let sim: RunningSimulator;
    let target: UpstreamTarget;
    const options = { signal: new AbortController().signal, timeoutMs: 2000 };
    const ask = (content: ChatRequest['messages'][number]['content'], extra: Partial<ChatRequest> = {}): ChatRequest =>
      ({ model: 'gateway-alias', messages: [{ role: 'user', content }], ...extra }) as ChatRequest;
    const complete = (request: ChatRequest, to = target, timeoutMs = options.timeoutMs) =>
      completeOnce(adapter, request, to, { ...options, timeoutMs });

    async function stream(request: ChatRequest, timeoutMs = options.timeoutMs) {
      const upstream = await streamOnce(adapter, request, target, { ...options, timeoutMs });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of upstream.chunks) chunks.push(chunk);
      return { chunks, usage: upstream.usage() };
    }
    const text = (chunks: ChatCompletionChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const finishes = (chunks: ChatCompletionChunk[]) =>
      chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter((f) => f !== null);
    const toolDeltas = (chunks: ChatCompletionChunk[]): ToolCallDelta[] =>
      chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);

    async function fault(spec: Record<string, unknown>): Promise<void> {
      const response = await fetch(`${sim.url}/__sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(spec),
      });
      expect(response.status).toBe(201);
    }
    async function lastRequest(): Promise<{ headers: Record<string, string>; body: Record<string, any> }> {
      const { requests } = (await (await fetch(`${sim.url}/__sim/requests`)).json()) as {
        requests: { headers: Record<string, string>; body: Record<string, any> }[];
      };
      return requests.at(-1)!;
    }

    beforeAll(async () => {
      sim = await startSimulator(definition, 0);
      target = { provider, baseUrl: sim.url + prefix, apiKey: 'sk-sim-adapter', model };
    });
    afterAll(() => sim.close());
    afterEach(() => fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' }));

    describe('request translation', () => {
      test('passes the canonical request through with the target model and the bearer key', async () => {
        const image = 'data:image/png;base64,iVBORw0KGgo=';
        const request = ask(
          [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: image, detail: 'low' } },
          ],
          {
            temperature: 0.3,
            top_p: 0.9,
            max_tokens: 50,
            stop: ['\n\n', 'END'],
            presence_penalty: 0.5,
            frequency_penalty: -0.25,
            seed: 7,
            tools: [WEATHER, CLOCK],
            tool_choice: 'auto',
            parallel_tool_calls: true,
            response_format: {
              type: 'json_schema',
              json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
            },
            user: 'user-123',
          },
        );
        const completion = await complete(request);
        expect(completion.choices[0]!.message.content).toContain('(I see 1 image)');

        const { headers, body } = await lastRequest();
        expect(headers['authorization']).toBe('Bearer sk-sim-adapter');
        const limitField = quirksFor(provider).maxTokensField;
        const { max_tokens: _, ...unchanged } = request;
        expect(body).toEqual({ ...unchanged, model, stream: false, [limitField]: 50 });
        expect(body['messages'][0].content[1]).toEqual({ type: 'image_url', image_url: { url: image, detail: 'low' } });
        expect(body).not.toHaveProperty('stream_options');
        for (const [name, value] of Object.entries(quirksFor(provider).headers))
          expect(headers[name.toLowerCase()]).toBe(value);
      });

      test('asks for usage when streaming where the upstream needs asking, and gets it either way', async () => {
        const { usage } = await stream(
          ask('hello', { tool_choice: { type: 'function', function: { name: 'get_time' } }, tools: [WEATHER, CLOCK] }),
        );
        const { body } = await lastRequest();
        expect(body['stream']).toBe(true);
        expect(body['tool_choice']).toEqual({ type: 'function', function: { name: 'get_time' } });
        if (quirksFor(provider).streamUsageNeedsOption) expect(body['stream_options']).toEqual({ include_usage: true });
        else expect(body).not.toHaveProperty('stream_options');
        expect(usage).toBeDefined();
      });
    });

    describe('answers', () => {
      test('non-stream: text, finish and usage with totals = sums', async () => {
        const completion = await complete(ask('[sim:reply=Bonjour à tous]'));
        expect(completion.object).toBe('chat.completion');
        expect(completion.choices).toEqual([
          {
            index: 0,
            message: { role: 'assistant', content: 'Bonjour à tous' },
            finish_reason: 'stop',
            logprobs: null,
          },
        ]);
        const { prompt_tokens, completion_tokens, total_tokens } = completion.usage;
        expect(completion_tokens).toBe(3);
        expect(total_tokens).toBe(prompt_tokens + completion_tokens);
      });

      test('stream: role-free content deltas that reassemble the exact text, one finish, usage consumed', async () => {
        const reply = 'One, two  three — four.';
        const { chunks, usage } = await stream(ask(`[sim:reply=${reply}]`));
        expect(text(chunks)).toBe(reply);
        for (const chunk of chunks) {
          expect(chunk.choices).toHaveLength(1);
          expect(chunk.choices[0]!.delta).not.toHaveProperty('role');
          // Nothing-to-say chunks (the role chunk, the usage chunk) are dropped.
          expect(chunk.choices[0]!.delta.content !== undefined || chunk.choices[0]!.finish_reason !== null).toBe(true);
        }
        expect(finishes(chunks)).toEqual(['stop']);
        expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
        const whole = await complete(ask(`[sim:reply=${reply}]`));
        expect(usage).toEqual(whole.usage);
        expect(usage!.total_tokens).toBe(usage!.prompt_tokens + usage!.completion_tokens);
      });

      test('cache reads, writes where the upstream reports them, and reasoning inside the completion', async () => {
        const request = ask(
          '[sim:words=3] [sim:cache_read=4] [sim:cache_write=2] [sim:cache_write_1h=1] [sim:reasoning=6]',
        );
        const whole = await complete(request);
        // The same prompt with every part 0: the parts divide the prompt, they add nothing to it.
        const plain = await complete(
          ask('[sim:words=3] [sim:cache_read=0] [sim:cache_write=0] [sim:cache_write_1h=0] [sim:reasoning=0]'),
        );
        // Only OpenRouter reports cache writes (one count, whatever their time); OpenAI's and
        // xAI's caches cost nothing extra to write.
        const writes = provider === 'openrouter' ? { cache_write_tokens: 3 } : {};
        expect(whole.usage).toEqual({
          prompt_tokens: plain.usage.prompt_tokens,
          completion_tokens: 3 + 6,
          total_tokens: plain.usage.prompt_tokens + 9,
          prompt_tokens_details: { cached_tokens: 4, ...writes },
          completion_tokens_details: { reasoning_tokens: 6 },
        });
        expect((await stream(request)).usage).toEqual(whole.usage);
      });

      test('parallel tool calls: stable indices and ids, first fragment complete, the rest arguments only', async () => {
        const request = ask('[sim:tools=2] weather and time please', { tools: [WEATHER, CLOCK] });
        const whole = await complete(request);
        const calls = whole.choices[0]!.message.tool_calls!;
        expect(whole.choices[0]!.message.content).toBeNull();
        expect(whole.choices[0]!.finish_reason).toBe('tool_calls');
        expect(calls.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
          ['function', 'get_weather', { city: 'city-value' }],
          ['function', 'get_time', {}],
        ]);

        const { chunks } = await stream(request);
        const deltas = toolDeltas(chunks);
        const firsts = deltas.filter((d) => d.id !== undefined);
        expect(firsts).toEqual(
          calls.map((call, index) => ({
            index,
            id: call.id,
            type: 'function',
            function: { name: call.function.name, arguments: '' },
          })),
        );
        for (const later of deltas.filter((d) => d.id === undefined))
          expect(Object.keys(later).sort()).toEqual(['function', 'index']);
        // Each call opens before its arguments, and the two interleave.
        for (const index of [0, 1])
          expect(deltas.findIndex((d) => d.index === index)).toBe(deltas.indexOf(firsts[index]!));
        expect(deltas.findIndex((d) => d.index === 1)).toBeLessThan(deltas.map((d) => d.index).lastIndexOf(0));
        const joined = [0, 1].map((index) =>
          deltas
            .filter((d) => d.index === index)
            .map((d) => d.function?.arguments ?? '')
            .join(''),
        );
        expect(joined).toEqual(calls.map((c) => c.function.arguments));
        expect(finishes(chunks)).toEqual(['tool_calls']);
      });

      test('a tool call with empty arguments', async () => {
        const request = ask('[sim:tool] [sim:empty_args]', { tools: [WEATHER] });
        const whole = await complete(request);
        expect(whole.choices[0]!.message.tool_calls![0]!.function).toEqual({ name: 'get_weather', arguments: '{}' });
        const deltas = toolDeltas((await stream(request)).chunks);
        expect(deltas[0]).toMatchObject({
          index: 0,
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        });
        expect(deltas.map((d) => d.function?.arguments ?? '').join('')).toBe('{}');
      });

      test.each([
        ['stop', '[sim:words=3]', {}],
        ['length', '[sim:words=3] [sim:finish=length]', {}],
        ['length', '[sim:words=9]', { max_tokens: 2 }],
        ['tool_calls', '[sim:tool]', { tools: [WEATHER] }],
        ['content_filter', '[sim:words=3] [sim:finish=content_filter]', {}],
      ] as const)('finish reason %s (%s)', async (finish, content, extra) => {
        const request = ask(content, extra as Partial<ChatRequest>);
        expect((await complete(request)).choices[0]!.finish_reason).toBe(finish);
        expect(finishes((await stream(request)).chunks)).toEqual([finish]);
      });
    });

    describe('errors', () => {
      test.each([
        [401, 'auth'],
        [400, 'bad_request'],
        [404, 'bad_request'],
        [429, 'rate_limit'],
        [500, 'overload'],
        [503, 'overload'],
      ] as const)('an injected %d is %s, before a stream or a whole answer', async (status, kind) => {
        await fault({ fault: `status:${status}`, times: 2 });
        for (const failure of [
          await failureOf(complete(ask('hi'))),
          await failureOf(streamOnce(adapter, ask('hi'), target, options)),
        ]) {
          expect(failure).toMatchObject({ kind, status });
          expect(failure.message).toContain(provider);
          if (status === 429) expect(failure.retryAfterMs).toBe(retryAfterMs);
        }
      });

      test('a bad key is auth', async () => {
        const failure = await failureOf(complete(ask('hi'), { ...target, apiKey: 'bad-key' }));
        expect(failure.kind).toBe('auth');
      });

      test('a connection reset after two events fails the iteration with connection', async () => {
        await fault({ fault: 'reset_after_chunks:2' });
        const upstream = await streamOnce(adapter, ask('[sim:words=8]'), target, options);
        const seen: ChatCompletionChunk[] = [];
        const failure = await failureOf(
          (async () => {
            for await (const chunk of upstream.chunks) seen.push(chunk);
          })(),
        );
        expect(failure.kind).toBe('connection');
        expect(seen.length).toBeLessThanOrEqual(1);
        expect(finishes(seen)).toEqual([]);
      });

      test('an unreadable event is malformed', async () => {
        await fault({ fault: 'malformed_chunk:1' });
        const failure = await failureOf(stream(ask('[sim:words=4]')));
        expect(failure.kind).toBe('malformed');
      });

      test('headers later than the timeout are a timeout', async () => {
        await fault({ fault: 'delay_headers:1000', times: 2 });
        expect((await failureOf(complete(ask('hi'), target, 80))).kind).toBe('timeout');
        expect((await failureOf(stream(ask('hi'), 80))).kind).toBe('timeout');
      });

      test('a proxy HTML page on 502 is still overload', async () => {
        const failure = await failureOf(complete(ask('[sim:error=502:html]')));
        expect(failure).toMatchObject({ kind: 'overload', status: 502 });
      });

      test('an error event mid-stream fails the iteration after the text so far', async () => {
        const upstream = await streamOnce(
          adapter,
          ask('[sim:words=6] [sim:midway_error=server_error]'),
          target,
          options,
        );
        const seen: ChatCompletionChunk[] = [];
        const failure = await failureOf(
          (async () => {
            for await (const chunk of upstream.chunks) seen.push(chunk);
          })(),
        );
        expect(failure.kind).toBe('overload');
        expect(text(seen)).toBe('word1 word2 word3');
      });
    });
  },
);

describe('provider quirks', () => {
  const sims: Partial<Record<ProviderId, RunningSimulator>> = {};
  const options = { signal: new AbortController().signal, timeoutMs: 2000 };
  const targetOf = (
    provider: ProviderId,
    model: string,
    prefix = '/v1',
    apiKey = 'sk-sim-adapter',
  ): UpstreamTarget => ({
    provider,
    baseUrl: sims[provider]!.url + prefix,
    apiKey,
    model,
  });
  const ask = (content: string): ChatRequest => ({ model: 'gateway-alias', messages: [{ role: 'user', content }] });

  beforeAll(async () => {
    sims.openai = await startSimulator(openAiSimulator, 0);
    sims.xai = await startSimulator(xaiSimulator, 0);
    sims.openrouter = await startSimulator(openRouterSimulator, 0);
  });
  afterAll(() => Promise.all(Object.values(sims).map((sim) => sim.close())));

  test('a multi-byte character split across 3-byte reads comes out intact from each upstream', async () => {
    const reply = 'héllo — 🙂 wörld';
    // The three at once: each read is a timer tick, so one after another would be slow.
    const texts = await Promise.all(
      CASES.map(async ({ provider, prefix, model }) => {
        await fetch(`${sims[provider]!.url}/__sim/faults`, {
          method: 'POST',
          body: JSON.stringify({ fault: 'fragment_bytes:3' }),
        });
        const upstream = await streamOnce(
          adapter,
          ask(`[sim:reply=${reply}]`),
          targetOf(provider, model, prefix),
          options,
        );
        let text = '';
        for await (const chunk of upstream.chunks) text += chunk.choices[0]?.delta.content ?? '';
        return text;
      }),
    );
    expect(texts).toEqual([reply, reply, reply]);
  });

  test('OpenAI: insufficient_quota is quota; a 429 hint can come from the text alone; x-should-retry: false ends retries', async () => {
    const openai = targetOf('openai', 'gpt-5');
    expect(
      await failureOf(completeOnce(adapter, ask('[sim:error=429:insufficient_quota]'), openai, options)),
    ).toMatchObject({
      kind: 'quota',
      status: 429,
      providerCode: 'insufficient_quota',
    });
    expect(
      await failureOf(completeOnce(adapter, ask('[sim:error=429:no_retry_after]'), openai, options)),
    ).toMatchObject({
      kind: 'rate_limit',
      providerCode: 'rate_limit_exceeded',
      retryAfterMs: 250,
    });
    expect((await failureOf(completeOnce(adapter, ask('[sim:error=429:no_retry]'), openai, options))).kind).toBe(
      'quota',
    );
  });

  test('xAI: a 400 "Incorrect API key" is auth; other 400s stay bad_request', async () => {
    expect(
      await failureOf(completeOnce(adapter, ask('hi'), targetOf('xai', 'grok-4', '/v1', 'bad-key'), options)),
    ).toMatchObject({ kind: 'auth', status: 400 });
    expect(
      await failureOf(completeOnce(adapter, ask('hi'), targetOf('xai', 'grok-4', '/v1', 'invalid-key'), options)),
    ).toMatchObject({ kind: 'auth', status: 401 });
    expect(
      await failureOf(completeOnce(adapter, ask('[sim:error=400]'), targetOf('xai', 'grok-4'), options)),
    ).toMatchObject({ kind: 'bad_request' });
  });

  test('OpenRouter: 402 is quota, a moderation 403 content_filter, an unknown model bad_request', async () => {
    const openrouter = targetOf('openrouter', 'openai/gpt-5', '/api/v1');
    expect(await failureOf(completeOnce(adapter, ask('[sim:error=402]'), openrouter, options))).toMatchObject({
      kind: 'quota',
      status: 402,
    });
    expect(await failureOf(completeOnce(adapter, ask('[sim:error=403]'), openrouter, options))).toMatchObject({
      kind: 'content_filter',
      status: 403,
    });
    expect(
      await failureOf(completeOnce(adapter, ask('hi'), { ...openrouter, model: 'nobody/nothing' }, options)),
    ).toMatchObject({ kind: 'bad_request', status: 400 });
  });

  test.each([
    ['502', 'overload'],
    ['server_error', 'overload'],
    ['429', 'rate_limit'],
  ] as const)('OpenRouter: a mid-stream error chunk with code %s is %s', async (code, kind) => {
    const upstream = await streamOnce(
      adapter,
      ask(`[sim:words=6] [sim:midway_error=${code}]`),
      targetOf('openrouter', 'openai/gpt-5', '/api/v1'),
      options,
    );
    const failure = await failureOf(
      (async () => {
        for await (const _ of upstream.chunks);
      })(),
    );
    expect(failure.kind).toBe(kind);
  });

  test('OpenRouter: a 200 answer whose choice carries an error is that error, not an answer', async () => {
    const failure = await failureOf(
      completeOnce(
        adapter,
        ask('[sim:words=6] [sim:midway_error=502]'),
        targetOf('openrouter', 'openai/gpt-5', '/api/v1'),
        options,
      ),
    );
    expect(failure).toMatchObject({ kind: 'overload', providerCode: '502' });
  });
});

describe('stream translator edges', () => {
  const target: UpstreamTarget = { provider: 'openai', baseUrl: 'http://unused', apiKey: 'k', model: 'gpt-5' };
  const event = (data: unknown) => ({ data: typeof data === 'string' ? data : JSON.stringify(data) });
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    event({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

  test('a finish reason without [DONE] is still a cut', () => {
    const translator = adapter.createStreamTranslator(target);
    translator.onEvent(delta({ content: 'hi' }));
    translator.onEvent(delta({}, 'stop'));
    expect(() => translator.onEnd()).toThrow(
      expect.objectContaining({ failure: expect.objectContaining({ kind: 'connection' }) }),
    );
  });

  test('[DONE] without a finish reason ends the answer with one', () => {
    const translator = adapter.createStreamTranslator(target);
    expect(translator.onEvent(delta({ content: 'hi' }))).toHaveLength(1);
    expect(translator.onEvent(event('[DONE]'))).toEqual([]);
    expect(translator.onEnd()).toMatchObject([{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]);
  });

  test('calls an upstream numbers all 0, or sends without ids, still get distinct indices and ids', () => {
    const translator = adapter.createStreamTranslator(target);
    const out = [
      delta({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'one', arguments: '{"x":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      delta({ tool_calls: [{ index: 0, id: 'b', type: 'function', function: { name: 'two', arguments: '{}' } }] }),
      delta({ tool_calls: [{ index: 1, type: 'function', function: { name: 'three' } }] }),
      delta({}, 'stop'),
    ].flatMap((e) => translator.onEvent(e));
    const deltas = out.flatMap((c) => c.choices[0]!.delta.tool_calls ?? []);
    expect(deltas.map((d) => [d.index, d.id !== undefined, d.function?.arguments])).toEqual([
      [0, true, '{"x":'],
      [0, false, '1}'],
      [1, true, '{}'],
      [2, true, ''],
    ]);
    expect(deltas[2]!.id).toBe('b');
    expect(deltas[3]!.id).toMatch(/^call_/);
    // `stop` after tool calls is reported as `tool_calls`: that is what the caller must act on.
    expect(out.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
  });

  test('usage on a content chunk counts too; an error-named event throws', () => {
    const translator = adapter.createStreamTranslator(target);
    translator.onEvent(
      event({
        choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1 },
      }),
    );
    expect(translator.usage()).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    expect(() => translator.onEvent({ event: 'error', data: '{"message":"boom"}' })).toThrow(UpstreamError);
  });
});
