import type { UpstreamTarget } from '../../../lambdas/providers/chat-adapter.js';
import { anthropicAdapter } from '../../../lambdas/providers/anthropic/anthropic-adapter.js';
import { toUsage } from '../../../lambdas/providers/anthropic/anthropic-response.js';
import type { ChatCompletionChunk, ChatRequest, ToolDefinition } from '../../../lambdas/providers/chat-types.js';
import { completeOnce, streamOnce } from '../../../lambdas/providers/upstream-call.js';
import { SseParser } from '../../../lambdas/providers/sse-parser.js';
import { UpstreamError } from '../../../lambdas/providers/upstream-failure.js';
import { anthropicSimulator } from '../../../local/simulators/anthropic.js';
import { parseFault } from '../../../local/simulators/faults.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { failure, finishOf, streamFailure as streamFailureOf, textOf } from './adapter-support.js';

/**
 * The Anthropic adapter end to end over loopback: canonical requests go through
 * completeOnce/streamOnce to the simulator; the captured wire body proves the request
 * translation (and the simulator's validation proves Anthropic would accept it), the answers
 * prove the response, stream and error translation.
 */

let sim: RunningSimulator;
let target: UpstreamTarget;

beforeAll(async () => {
  sim = await startSimulator(anthropicSimulator, 0);
  target = { provider: 'anthropic', baseUrl: sim.url, apiKey: 'sk-ant-test', model: 'claude-sonnet-4-5' };
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.requests.length = 0;
});

const OPTIONS = { signal: new AbortController().signal, timeoutMs: 2000 };
const WEATHER: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const TIME: ToolDefinition = { type: 'function', function: { name: 'get_time' } };
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'claude-sonnet-4-5',
  messages: [{ role: 'user', content: text }],
  ...extra,
});

/** The wire body the simulator received for the last call. */
function sentBody(): Record<string, any> {
  return sim.requests[sim.requests.length - 1]!.body as Record<string, any>;
}

function fault(spec: string, times = 1): void {
  sim.faults.add({ fault: parseFault(spec)!, remaining: times, text: spec });
}

async function collect(request: ChatRequest, timeoutMs = 2000) {
  const stream = await streamOnce(anthropicAdapter, request, target, { ...OPTIONS, timeoutMs });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream.chunks) chunks.push(chunk);
  return { chunks, usage: stream.usage() };
}

const streamFailure = (request: ChatRequest, timeoutMs = 2000) =>
  streamFailureOf(anthropicAdapter, request, target, timeoutMs);

describe('request translation', () => {
  it('sends the headers, URL and a body the Messages API accepts', async () => {
    await completeOnce(anthropicAdapter, ask('hi'), target, OPTIONS);
    const request = sim.requests[0]!;
    expect(request.path).toBe('/v1/messages');
    expect(request.headers).toMatchObject({
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    });
    expect(sentBody()).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('hoists system and developer messages, merges same-role turns and maps tool results and images', async () => {
    const request: ChatRequest = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { role: 'developer', content: [{ type: 'text', text: 'Use tools.' }] },
        { role: 'user', content: 'Quickly please.' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_a1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call.b2', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
            { id: 'call_c3', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call.b2', content: [{ type: 'text', text: 'rainy' }] },
        { role: 'tool', tool_call_id: 'call_c3', content: '12:00' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'And these?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          ],
        },
      ],
      tools: [WEATHER, TIME],
      stop: 'END',
      temperature: 1.6,
      // 1 restricts nothing, so the temperature is sent (and clamped to Anthropic's 1).
      top_p: 1,
      presence_penalty: 1,
      frequency_penalty: 1,
      seed: 7,
      user: 'user-42',
    };
    const completion = await completeOnce(anthropicAdapter, request, target, OPTIONS);
    expect(completion.choices[0]!.message.content).toContain('(I see 2 images)');
    const body = sentBody();
    expect(body['system']).toBe('You are terse.\n\nUse tools.');
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Paris and Rome?' },
          { type: 'text', text: 'Quickly please.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_a1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_b2', name: 'get_weather', input: { _raw: '{"city":' } },
          { type: 'tool_use', id: 'call_c3', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'call_b2', content: 'rainy' },
          { type: 'tool_result', tool_use_id: 'call_c3', content: '12:00' },
          { type: 'text', text: 'And these?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
    expect(body['tools']).toEqual([
      { name: 'get_weather', description: 'Current weather', input_schema: WEATHER.function.parameters },
      { name: 'get_time', input_schema: { type: 'object' } },
    ]);
    expect(body['stop_sequences']).toEqual(['END']);
    expect(body['temperature']).toBe(1);
    expect(body['metadata']).toEqual({ user_id: 'user-42' });
    // No Anthropic equivalent (penalties, seed), or rejected alongside temperature (a top_p of 1).
    for (const dropped of ['top_p', 'presence_penalty', 'frequency_penalty', 'seed', 'tool_choice', 'user', 'stop'])
      expect(body).not.toHaveProperty(dropped);
  });

  it('opens an assistant-first conversation with a user turn', async () => {
    await completeOnce(
      anthropicAdapter,
      {
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'hi' },
        ],
      },
      target,
      OPTIONS,
    );
    expect(sentBody()['messages'].map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('sends a top_p below 1 instead of the temperature, and honours max_tokens', async () => {
    const request = ask('hi', { temperature: 0.7, top_p: 0.9, max_tokens: 50, stop: ['a', 'b'] });
    await completeOnce(anthropicAdapter, request, target, OPTIONS);
    expect(sentBody()).toMatchObject({ top_p: 0.9, max_tokens: 50, stop_sequences: ['a', 'b'] });
    expect(sentBody()).not.toHaveProperty('temperature');
  });

  it.each([
    ['auto', undefined, { type: 'auto' }],
    ['none', undefined, { type: 'none' }],
    ['required', undefined, { type: 'any' }],
    [{ type: 'function', function: { name: 'get_time' } }, undefined, { type: 'tool', name: 'get_time' }],
    ['required', false, { type: 'any', disable_parallel_tool_use: true }],
    [undefined, false, { type: 'auto', disable_parallel_tool_use: true }],
  ] as const)('tool_choice %j (parallel %j) → %j', async (choice, parallel, expected) => {
    const request = ask('hi', { tools: [WEATHER, TIME] });
    if (choice !== undefined) request.tool_choice = choice;
    if (parallel !== undefined) request.parallel_tool_calls = parallel;
    await completeOnce(anthropicAdapter, request, target, OPTIONS);
    expect(sentBody()['tool_choice']).toEqual(expected);
  });

  it('asks for JSON through the system prompt for response_format', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    await completeOnce(
      anthropicAdapter,
      ask('hi', { response_format: { type: 'json_schema', json_schema: { name: 'reply', schema } } }),
      target,
      OPTIONS,
    );
    expect(sentBody()['system']).toContain(JSON.stringify(schema));
    await completeOnce(
      anthropicAdapter,
      ask('hi', {
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'hi' },
        ],
        response_format: { type: 'json_object' },
      }),
      target,
      OPTIONS,
    );
    expect(sentBody()['system']).toMatch(/^S\n\nRespond with a single valid JSON object/);
  });

  it('rejects an image URL Anthropic cannot take, before calling', async () => {
    const request = ask('', {
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AAAA' } }] }],
    });
    expect(await failure(completeOnce(anthropicAdapter, request, target, OPTIONS))).toMatchObject({
      kind: 'bad_request',
    });
    expect(sim.requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('returns text, finish reason and usage (prompt = input + cache writes + cache reads)', async () => {
    const completion = await completeOnce(
      anthropicAdapter,
      ask('[sim:reply=Hello there] [sim:cache_read=4] [sim:cache_write=3]'),
      target,
      OPTIONS,
    );
    const choice = completion.choices[0]!;
    expect(choice.message).toMatchObject({ role: 'assistant', content: 'Hello there' });
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.finish_reason).toBe('stop');
    expect(completion.model).toBe('claude-sonnet-4-5-20250929');
    const plain = await completeOnce(
      anthropicAdapter,
      ask('[sim:reply=Hello there] [sim:cache_read=0] [sim:cache_write=0]'),
      target,
      OPTIONS,
    );
    expect(completion.usage).toEqual({
      prompt_tokens: plain.usage.prompt_tokens,
      completion_tokens: 2,
      total_tokens: plain.usage.prompt_tokens + 2,
      prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 3 },
    });
  });

  it('reads cache writes by time and thinking, whole and streamed alike', async () => {
    const request = ask(
      '[sim:words=5] [sim:cache_read=4] [sim:cache_write=3] [sim:cache_write_1h=2] [sim:reasoning=7]',
    );
    const whole = await completeOnce(anthropicAdapter, request, target, OPTIONS);
    // The same prompt with every part 0: the parts divide the prompt, they add nothing to it.
    const plain = await completeOnce(
      anthropicAdapter,
      ask('[sim:words=5] [sim:cache_read=0] [sim:cache_write=0] [sim:cache_write_1h=0] [sim:reasoning=0]'),
      target,
      OPTIONS,
    );
    expect(whole.usage).toEqual({
      prompt_tokens: plain.usage.prompt_tokens,
      completion_tokens: 5 + 7,
      total_tokens: plain.usage.prompt_tokens + 12,
      prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 5, cache_write_1h_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
    expect((await collect(request)).usage).toEqual(whole.usage);
  });

  it('reads the writes from the cache_creation breakdown when the total is absent', () => {
    expect(
      toUsage({
        input_tokens: 10,
        output_tokens: 4,
        cache_read_input_tokens: 20,
        cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 40 },
      }),
    ).toEqual({
      prompt_tokens: 100,
      completion_tokens: 4,
      total_tokens: 104,
      prompt_tokens_details: { cached_tokens: 20, cache_write_tokens: 70, cache_write_1h_tokens: 40 },
    });
  });

  it('returns parallel tool calls with the tool_use ids and JSON string arguments', async () => {
    const completion = await completeOnce(
      anthropicAdapter,
      ask('[sim:tools=2]', { tools: [WEATHER, TIME] }),
      target,
      OPTIONS,
    );
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^toolu_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"city-value"}' },
      },
      { id: expect.stringMatching(/^toolu_/), type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });

  it('maps every stop reason', async () => {
    const cases: [ChatRequest, string][] = [
      [ask('[sim:reply=done]'), 'stop'],
      [ask('[sim:reply=one two STOP three]', { stop: 'STOP' }), 'stop'],
      [ask('[sim:words=20]', { max_tokens: 3 }), 'length'],
      [ask('[sim:tool]', { tools: [WEATHER] }), 'tool_calls'],
      [ask('[sim:finish=content_filter]'), 'content_filter'],
    ];
    for (const [request, reason] of cases) {
      expect((await completeOnce(anthropicAdapter, request, target, OPTIONS)).choices[0]!.finish_reason).toBe(reason);
      expect(finishOf((await collect(request)).chunks)).toEqual([reason]);
    }
  });
});

describe('streams', () => {
  it('reassembles the exact text and ends with one finish chunk', async () => {
    const request = ask('[sim:words=12]');
    const { chunks } = await collect(request);
    const completion = await completeOnce(anthropicAdapter, request, target, OPTIONS);
    expect(textOf(chunks)).toBe(completion.choices[0]!.message.content);
    expect(chunks[chunks.length - 1]!.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    expect(chunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
  });

  it('keeps multi-byte characters whole when every write is split into 3-byte pieces', async () => {
    fault('fragment_bytes:3');
    const { chunks } = await collect(ask('[sim:reply=héllo — 🙂 wörld]'));
    expect(textOf(chunks)).toBe('héllo — 🙂 wörld');
  });

  it('streams parallel tool calls with stable indices, ids on the first fragment only', async () => {
    const { chunks } = await collect(ask('[sim:tools=2]', { tools: [WEATHER, TIME] }));
    const deltas = chunks.flatMap((c) => c.choices[0]!.delta.tool_calls ?? []);
    const firsts = deltas.filter((d) => d.id !== undefined);
    expect(firsts).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^toolu_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      },
      {
        index: 1,
        id: expect.stringMatching(/^toolu_/),
        type: 'function',
        function: { name: 'get_time', arguments: '' },
      },
    ]);
    for (const later of deltas.filter((d) => d.id === undefined))
      expect(Object.keys(later).sort()).toEqual(['function', 'index']);
    const args = (index: number) =>
      deltas
        .filter((d) => d.index === index)
        .map((d) => d.function?.arguments ?? '')
        .join('');
    expect(JSON.parse(args(0))).toEqual({ city: 'city-value' });
    expect(args(1)).toBe('{}');
    const completion = await completeOnce(
      anthropicAdapter,
      ask('[sim:tools=2]', { tools: [WEATHER, TIME] }),
      target,
      OPTIONS,
    );
    expect(firsts.map((f) => f.id)).toEqual(completion.choices[0]!.message.tool_calls!.map((c) => c.id));
    expect(finishOf(chunks)).toEqual(['tool_calls']);
  });

  it('gives a call without streamed arguments "{}" as its arguments', async () => {
    const { chunks } = await collect(ask('[sim:tool] [sim:empty_args]', { tools: [WEATHER] }));
    const args = chunks.flatMap((c) => c.choices[0]!.delta.tool_calls ?? []).map((d) => d.function?.arguments ?? '');
    expect(args.join('')).toBe('{}');
    const completion = await completeOnce(
      anthropicAdapter,
      ask('[sim:tool] [sim:empty_args]', { tools: [WEATHER] }),
      target,
      OPTIONS,
    );
    expect(completion.choices[0]!.message.tool_calls![0]!.function.arguments).toBe('{}');
  });

  it('reports usage: input from message_start, output from the cumulative message_delta', async () => {
    const request = ask('[sim:words=9] [sim:cache_read=2]');
    const { usage } = await collect(request);
    const completion = await completeOnce(anthropicAdapter, request, target, OPTIONS);
    expect(usage).toEqual(completion.usage);
    expect(usage).toMatchObject({ completion_tokens: 9, prompt_tokens_details: { cached_tokens: 2 } });
    expect(usage!.total_tokens).toBe(usage!.prompt_tokens + usage!.completion_tokens);
  });

  it('ignores thinking blocks', async () => {
    // The adapter never asks for thinking, so the simulator's thinking stream is fed to the translator directly.
    const response = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 2048,
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: '[sim:reply=Done]' }],
      }),
    });
    const translator = anthropicAdapter.createStreamTranslator(target);
    const parser = new SseParser();
    const chunks = [...parser.push(new Uint8Array(await response.arrayBuffer())), ...parser.end()].flatMap((e) =>
      translator.onEvent(e),
    );
    chunks.push(...translator.onEnd());
    expect(textOf(chunks)).toBe('Done');
    expect(finishOf(chunks)).toEqual(['stop']);
  });
});

describe('errors', () => {
  it.each([
    [400, 'bad_request', 'invalid_request_error'],
    [401, 'auth', 'authentication_error'],
    [402, 'quota', 'billing_error'],
    [403, 'auth', 'permission_error'],
    [404, 'bad_request', 'not_found_error'],
    [413, 'bad_request', 'request_too_large'],
    [429, 'rate_limit', 'rate_limit_error'],
    [500, 'overload', 'api_error'],
    [504, 'overload', 'timeout_error'],
    [529, 'overload', 'overloaded_error'],
  ])('status %i → %s', async (status, kind, code) => {
    fault(`status:${status}`, 2);
    const result = await failure(completeOnce(anthropicAdapter, ask('hi'), target, OPTIONS));
    expect(result).toMatchObject({ kind, status, providerCode: code });
    if (status === 429) expect(result.retryAfterMs).toBe(1000);
    expect((await failure(streamOnce(anthropicAdapter, ask('hi'), target, OPTIONS))).kind).toBe(kind);
  });

  it('classifies a non-JSON proxy page by its status', async () => {
    fault('status:502');
    const result = await failure(completeOnce(anthropicAdapter, ask('hi'), target, OPTIONS));
    expect(result).toMatchObject({ kind: 'overload', status: 502 });
    expect(result.providerCode).toBeUndefined();
    expect(result.message).toMatch(/502 Bad Gateway/);
  });

  it('classifies the answers to a bad key and an unknown model', async () => {
    expect(
      await failure(completeOnce(anthropicAdapter, ask('hi'), { ...target, apiKey: 'bad-key' }, OPTIONS)),
    ).toMatchObject({ kind: 'auth', status: 401 });
    expect(
      await failure(completeOnce(anthropicAdapter, ask('hi'), { ...target, model: 'gpt-5' }, OPTIONS)),
    ).toMatchObject({ kind: 'bad_request', status: 404 });
  });

  it('treats spend limits and credit exhaustion as quota', () => {
    const classify = (status: number, body: unknown) =>
      anthropicAdapter.classifyError(status, new Headers(), JSON.stringify(body), 'anthropic').kind;
    expect(
      classify(400, {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'Your credit balance is too low to access the Anthropic API.',
        },
      }),
    ).toBe('quota');
    expect(
      classify(429, {
        type: 'error',
        error: { type: 'rate_limit_error', message: 'limit', details: { error_code: 'enforced_spend_limit_reached' } },
      }),
    ).toBe('quota');
    expect(anthropicAdapter.classifyError(503, new Headers(), '', 'anthropic')).toMatchObject({
      kind: 'overload',
      status: 503,
    });
  });

  it('throws overload for an in-stream overloaded_error, after the content before it', async () => {
    const { failure: result, chunks } = await streamFailure(ask('[sim:words=5] [sim:stream_error=overloaded_error]'));
    expect(result).toMatchObject({ kind: 'overload', providerCode: 'overloaded_error' });
    expect(textOf(chunks)).toBe('word1');
  });

  it('throws connection when the stream is cut before message_stop', async () => {
    fault('reset_after_chunks:3');
    expect((await streamFailure(ask('[sim:words=5]'))).failure.kind).toBe('connection');
  });

  it('throws malformed for an unreadable event', async () => {
    fault('malformed_chunk:2');
    expect((await streamFailure(ask('[sim:words=5]'))).failure.kind).toBe('malformed');
    fault('malformed_chunk');
    expect((await failure(completeOnce(anthropicAdapter, ask('hi'), target, OPTIONS))).kind).toBe('malformed');
  });

  it('times out when the headers come too late', async () => {
    fault('delay_headers:400', 2);
    expect(
      (await failure(completeOnce(anthropicAdapter, ask('hi'), target, { ...OPTIONS, timeoutMs: 100 }))).kind,
    ).toBe('timeout');
    expect((await streamFailure(ask('hi'), 100)).failure.kind).toBe('timeout');
  });

  it('throws connection when a stream ends without its terminal marker (translator level)', () => {
    const translator = anthropicAdapter.createStreamTranslator(target);
    translator.onEvent({
      event: 'message_start',
      data: '{"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}',
    });
    expect(() => translator.onEnd()).toThrow(UpstreamError);
    expect(translator.usage()).toMatchObject({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
  });
});
