import type { UpstreamTarget } from '../../../lambdas/providers/chat-adapter.js';
import { geminiAdapter } from '../../../lambdas/providers/gemini/gemini-adapter.js';
import type { ChatCompletionChunk, ChatRequest, ToolDefinition } from '../../../lambdas/providers/chat-types.js';
import { completeOnce, streamOnce } from '../../../lambdas/providers/upstream-call.js';
import { parseFault } from '../../../local/simulators/faults.js';
import { geminiSimulator } from '../../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { failure, finishOf, streamFailure as streamFailureOf, textOf } from './adapter-support.js';

/**
 * The Gemini adapter end to end over loopback: canonical requests go through
 * completeOnce/streamOnce to the simulator; the captured wire body proves the request
 * translation (and the simulator's validation proves Gemini would accept it), the answers prove
 * the response, stream and error translation.
 */

let sim: RunningSimulator;
let target: UpstreamTarget;

beforeAll(async () => {
  sim = await startSimulator(geminiSimulator, 0);
  target = { provider: 'google', baseUrl: `${sim.url}/v1beta`, apiKey: 'AIza-test', model: 'gemini-2.5-pro' };
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
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
const TIME: ToolDefinition = { type: 'function', function: { name: 'get_time' } };
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

type Json = Record<string, any>;

const ask = (text: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'gemini-2.5-pro',
  messages: [{ role: 'user', content: text }],
  ...extra,
});

function sent(): { path: string; query: Record<string, string>; headers: Record<string, string>; body: Json } {
  const request = sim.requests[sim.requests.length - 1]!;
  return { path: request.path, query: request.query, headers: request.headers, body: request.body as Json };
}

function fault(spec: string, times = 1): void {
  sim.faults.add({ fault: parseFault(spec)!, remaining: times, text: spec });
}

async function collect(request: ChatRequest, timeoutMs = 2000) {
  const stream = await streamOnce(geminiAdapter, request, target, { ...OPTIONS, timeoutMs });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream.chunks) chunks.push(chunk);
  return { chunks, usage: stream.usage() };
}

const toolDeltas = (chunks: ChatCompletionChunk[]) => chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);

const streamFailure = (request: ChatRequest, timeoutMs = 2000) =>
  streamFailureOf(geminiAdapter, request, target, timeoutMs);

describe('request translation', () => {
  it('calls :generateContent / :streamGenerateContent?alt=sse with x-goog-api-key', async () => {
    await completeOnce(geminiAdapter, ask('hi'), target, OPTIONS);
    expect(sent()).toMatchObject({
      path: '/v1beta/models/gemini-2.5-pro:generateContent',
      query: {},
      headers: expect.objectContaining({ 'x-goog-api-key': 'AIza-test' }),
    });
    await collect(ask('hi'));
    expect(sent()).toMatchObject({
      path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent',
      query: { alt: 'sse' },
    });
  });

  it('moves system and developer messages to systemInstruction and maps and merges roles', async () => {
    await completeOnce(
      geminiAdapter,
      ask('', {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'first' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
          { role: 'user', content: [{ type: 'text', text: 'second' }] },
          { role: 'assistant', content: 'an answer' },
          { role: 'assistant', content: [{ type: 'text', text: 'more' }] },
          { role: 'user', content: 'third' },
        ],
      }),
      target,
      OPTIONS,
    );
    const body = sent().body;
    expect(body['systemInstruction']).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use metric.' }] });
    expect(body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'first' }, { text: 'second' }] },
      { role: 'model', parts: [{ text: 'an answer' }, { text: 'more' }] },
      { role: 'user', parts: [{ text: 'third' }] },
    ]);
    expect(body['generationConfig']).toBeUndefined();
  });

  it('sends tool calls as object args and tool results as functionResponse parts named by tool_call_id', async () => {
    const answer = await completeOnce(
      geminiAdapter,
      ask('', {
        tools: [WEATHER, TIME],
        messages: [
          { role: 'user', content: 'weather and time?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_b', content: 'noon' },
          { role: 'tool', tool_call_id: 'call_a', content: [{ type: 'text', text: '{"temp":21}' }] },
        ],
      }),
      target,
      OPTIONS,
    );
    expect(sent().body['contents']).toEqual([
      { role: 'user', parts: [{ text: 'weather and time?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_time', response: { content: 'noon' } } },
          { functionResponse: { name: 'get_weather', response: { temp: 21 } } },
        ],
      },
    ]);
    expect(answer.choices[0]!.message.content).toBe('The get_weather tool returned: {"temp":21}');
  });

  it('keeps unparsable tool-call arguments as {"arguments": text}', async () => {
    await completeOnce(
      geminiAdapter,
      ask('', {
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Par' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'cut' },
        ],
      }),
      target,
      OPTIONS,
    );
    expect(sent().body['contents'][1].parts[0]).toEqual({
      functionCall: { name: 'get_weather', args: { arguments: '{"city":"Par' } },
    });
  });

  it('refuses a tool message that answers no earlier call, without calling upstream', async () => {
    const refused = await failure(
      completeOnce(
        geminiAdapter,
        ask('', {
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', tool_call_id: 'nope', content: 'x' },
          ],
        }),
        target,
        OPTIONS,
      ),
    );
    expect(refused.kind).toBe('bad_request');
    expect(sim.requests).toHaveLength(0);
  });

  it('sends data: images as inlineData and URLs as fileData with a guessed mime type', async () => {
    const answer = await completeOnce(
      geminiAdapter,
      ask('', {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'compare' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: 'low' } },
              { type: 'image_url', image_url: { url: 'https://example.com/pics/cat.webp?size=2' } },
              { type: 'image_url', image_url: { url: 'https://example.com/render' } },
              { type: 'image_url', image_url: { url: 'data:image/svg+xml,%3Csvg%2F%3E' } },
            ],
          },
        ],
      }),
      target,
      OPTIONS,
    );
    expect(sent().body['contents'][0].parts).toEqual([
      { text: 'compare' },
      { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
      { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/pics/cat.webp?size=2' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/render' } },
      { inlineData: { mimeType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') } },
    ]);
    expect(answer.choices[0]!.message.content).toMatch(/\(I see 4 images\)$/);
  });

  it('declares tools in the schema subset and maps every tool_choice to a functionCallingConfig mode', async () => {
    const cases: [ChatRequest['tool_choice'], Json | undefined][] = [
      [undefined, undefined],
      ['auto', { mode: 'AUTO' }],
      ['none', { mode: 'NONE' }],
      ['required', { mode: 'ANY' }],
      [
        { type: 'function', function: { name: 'get_time' } },
        { mode: 'ANY', allowedFunctionNames: ['get_time'] },
      ],
    ];
    for (const [choice, config] of cases) {
      const answer = await completeOnce(
        geminiAdapter,
        ask('[sim:tool] go', { tools: [WEATHER, TIME], ...(choice ? { tool_choice: choice } : {}) }),
        target,
        OPTIONS,
      );
      const body = sent().body;
      expect(body['tools']).toEqual([
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather',
              parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
            },
            { name: 'get_time' },
          ],
        },
      ]);
      expect(body['toolConfig']).toEqual(config === undefined ? undefined : { functionCallingConfig: config });
      const calls = answer.choices[0]!.message.tool_calls ?? [];
      if (choice === 'none') expect(calls).toHaveLength(0);
      else expect(calls[0]?.function.name).toBe(typeof choice === 'object' ? 'get_time' : 'get_weather');
    }
  });

  it('sends schemas the subset cannot express as parametersJsonSchema', async () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } };
    await completeOnce(
      geminiAdapter,
      ask('hi', { tools: [{ type: 'function', function: { name: 'f', parameters: schema } }] }),
      target,
      OPTIONS,
    );
    expect(sent().body['tools'][0].functionDeclarations[0]).toEqual({ name: 'f', parametersJsonSchema: schema });
  });

  it('maps sampling fields to generationConfig', async () => {
    await completeOnce(
      geminiAdapter,
      ask('hi', {
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 50,
        stop: ['END', 'STOP'],
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        seed: 7,
        user: 'u1',
        parallel_tool_calls: false,
      }),
      target,
      OPTIONS,
    );
    expect(sent().body['generationConfig']).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 50,
      stopSequences: ['END', 'STOP'],
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      seed: 7,
    });
    await completeOnce(geminiAdapter, ask('hi', { stop: 'END' }), target, OPTIONS);
    expect(sent().body['generationConfig']).toEqual({ stopSequences: ['END'] });
  });

  it('maps response_format json_object and json_schema to responseMimeType and responseSchema', async () => {
    await completeOnce(geminiAdapter, ask('hi', { response_format: { type: 'json_object' } }), target, OPTIONS);
    expect(sent().body['generationConfig']).toEqual({ responseMimeType: 'application/json' });

    const schema = {
      type: 'object',
      properties: {
        name: { type: ['string', 'null'], format: 'email' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name'],
      additionalProperties: false,
    };
    await completeOnce(
      geminiAdapter,
      ask('hi', { response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema } } }),
      target,
      OPTIONS,
    );
    expect(sent().body['generationConfig']).toEqual({
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT',
        properties: { name: { type: 'STRING', nullable: true }, tags: { type: 'ARRAY', items: { type: 'STRING' } } },
        required: ['name'],
      },
    });
  });

  it('honours stop sequences and max_tokens upstream', async () => {
    const stopped = await completeOnce(
      geminiAdapter,
      ask('[sim:reply=one two END three]', { stop: 'END' }),
      target,
      OPTIONS,
    );
    expect(stopped.choices[0]!.message.content).toBe('one two ');
    const cut = await completeOnce(geminiAdapter, ask('[sim:words=10]', { max_tokens: 3 }), target, OPTIONS);
    expect(cut.choices[0]).toMatchObject({ message: { content: 'word1 word2 word3' }, finish_reason: 'length' });
  });
});

describe('responses', () => {
  it('reads text and usage (totals are sums)', async () => {
    const answer = await completeOnce(geminiAdapter, ask('[sim:reply=Paris is sunny.]'), target, OPTIONS);
    expect(answer).toMatchObject({
      object: 'chat.completion',
      model: 'gemini-2.5-pro',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Paris is sunny.' }, finish_reason: 'stop' }],
    });
    expect(answer.id).toMatch(/^chatcmpl-/);
    const usage = answer.usage;
    expect(usage.completion_tokens).toBe(3);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it('reads parallel tool calls: Gemini ids kept, missing ids synthesised, args as JSON strings', async () => {
    const withIds = await completeOnce(
      geminiAdapter,
      ask('[sim:tools=2]', { tools: [WEATHER, TIME] }),
      target,
      OPTIONS,
    );
    const message = withIds.choices[0]!.message;
    expect(withIds.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^sim/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"city-value"}' },
      },
      { id: expect.stringMatching(/^sim/), type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);

    const synthesised = await completeOnce(
      geminiAdapter,
      ask('[sim:tools=2] [sim:no_call_ids]', { tools: [WEATHER, TIME] }),
      target,
      OPTIONS,
    );
    const ids = synthesised.choices[0]!.message.tool_calls!.map((call) => call.id);
    expect(ids[0]).toMatch(/^call_0_[0-9a-f]{12}$/);
    expect(ids[1]).toMatch(/^call_1_[0-9a-f]{12}$/);
  });

  it('streams parallel tool calls whole, with stable indices and synthesised ids', async () => {
    const { chunks } = await collect(ask('[sim:tools=3] [sim:no_call_ids]', { tools: [WEATHER, TIME] }));
    const deltas = toolDeltas(chunks);
    expect(deltas).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_0_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"city-value"}' },
      },
      {
        index: 1,
        id: expect.stringMatching(/^call_1_/),
        type: 'function',
        function: { name: 'get_time', arguments: '{}' },
      },
      {
        index: 2,
        id: expect.stringMatching(/^call_2_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"city-value"}' },
      },
    ]);
    expect(new Set(deltas.map((d) => d.id)).size).toBe(3);
    expect(finishOf(chunks)).toEqual(['tool_calls']);
  });

  it('reads empty args as "{}"', async () => {
    const answer = await completeOnce(
      geminiAdapter,
      ask('[sim:tool] [sim:empty_args]', { tools: [WEATHER] }),
      target,
      OPTIONS,
    );
    expect(answer.choices[0]!.message.tool_calls![0]!.function.arguments).toBe('{}');
    const { chunks } = await collect(ask('[sim:tool] [sim:empty_args]', { tools: [WEATHER] }));
    expect(toolDeltas(chunks)[0]!.function).toEqual({ name: 'get_weather', arguments: '{}' });
  });

  it('reassembles streamed text exactly as the whole answer reads', async () => {
    const request = ask('tell me about it [sim:words=12]');
    const whole = await completeOnce(geminiAdapter, request, target, OPTIONS);
    const { chunks, usage } = await collect(request);
    expect(chunks.length).toBeGreaterThan(12);
    expect(textOf(chunks)).toBe(whole.choices[0]!.message.content);
    expect(usage).toEqual(whole.usage);
    expect(finishOf(chunks)).toEqual(['stop']);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.choices[0]!.index === 0)).toBe(true);
  });

  it('reassembles multi-byte text split into 3-byte TCP pieces', async () => {
    fault('fragment_bytes:3');
    const { chunks } = await collect(ask('[sim:reply=héllo — 🙂 wörld]'));
    expect(textOf(chunks)).toBe('héllo — 🙂 wörld');
    expect(finishOf(chunks)).toEqual(['stop']);
  });

  it('reads cached content and thoughts: thoughts are output beyond the candidates, whole and streamed alike', async () => {
    const request = ask('[sim:words=4] [sim:cache_read=5] [sim:reasoning=9]');
    const whole = await completeOnce(geminiAdapter, request, target, OPTIONS);
    // The same prompt with every part 0: the parts divide the prompt, they add nothing to it.
    const plain = await completeOnce(
      geminiAdapter,
      ask('[sim:words=4] [sim:cache_read=0] [sim:reasoning=0]'),
      target,
      OPTIONS,
    );
    expect(whole.usage).toEqual({
      prompt_tokens: plain.usage.prompt_tokens,
      completion_tokens: 4 + 9,
      total_tokens: plain.usage.prompt_tokens + 13,
      prompt_tokens_details: { cached_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 9 },
    });
    expect((await collect(request)).usage).toEqual(whole.usage);
  });

  it('takes the last usageMetadata of the stream (intermediate events are partial)', async () => {
    const stream = await streamOnce(geminiAdapter, ask('[sim:words=4]'), target, OPTIONS);
    const seen: (number | undefined)[] = [];
    for await (const chunk of stream.chunks)
      if (chunk.choices[0]?.delta.content !== undefined) seen.push(stream.usage()?.completion_tokens);
    expect(seen.slice(0, 3)).toEqual([0, 0, 0]);
    const usage = stream.usage()!;
    expect(usage.completion_tokens).toBe(4);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + 4);
  });

  it.each([
    ['stop', '[sim:words=2]', {}],
    ['length', '[sim:finish=length]', {}],
    ['tool_calls', '[sim:tool]', { tools: [WEATHER] }],
    ['content_filter', '[sim:finish=content_filter]', {}],
    ['content_filter', '[sim:finish=RECITATION]', {}],
    ['content_filter', '[sim:block=SAFETY]', {}],
    ['content_filter', '[sim:block=OTHER]', {}],
  ] as [string, string, Partial<ChatRequest>][])(
    'reports finish_reason %s for %s, whole and streamed',
    async (reason, text, extra) => {
      const answer = await completeOnce(geminiAdapter, ask(text, extra), target, OPTIONS);
      expect(answer.choices[0]!.finish_reason).toBe(reason);
      const { chunks } = await collect(ask(text, extra));
      expect(finishOf(chunks)).toEqual([reason]);
    },
  );

  it('reads a blocked prompt as content_filter with empty content', async () => {
    const answer = await completeOnce(geminiAdapter, ask('[sim:block=PROHIBITED_CONTENT]'), target, OPTIONS);
    expect(answer.choices[0]!.message.content).toBe('');
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('treats MALFORMED_FUNCTION_CALL and OTHER as malformed failures', async () => {
    for (const reason of ['MALFORMED_FUNCTION_CALL', 'OTHER']) {
      expect(await failure(completeOnce(geminiAdapter, ask(`[sim:finish=${reason}]`), target, OPTIONS))).toMatchObject({
        kind: 'malformed',
        providerCode: reason,
      });
      const streamed = await streamFailure(ask(`[sim:words=3] [sim:finish=${reason}]`));
      expect(streamed.failure).toMatchObject({ kind: 'malformed', providerCode: reason });
      expect(textOf(streamed.chunks)).toBe('word1 word2');
    }
  });
});

describe('errors', () => {
  it('classifies a bad key (400 API_KEY_INVALID) as auth', async () => {
    const bad = await failure(completeOnce(geminiAdapter, ask('hi'), { ...target, apiKey: 'bad-key' }, OPTIONS));
    expect(bad).toMatchObject({
      kind: 'auth',
      status: 400,
      providerCode: 'API_KEY_INVALID',
      message: expect.stringMatching(/^google answered 400: API key not valid/),
    });
  });

  it.each([
    [400, 'bad_request', 'INVALID_ARGUMENT'],
    [401, 'auth', 'CREDENTIALS_MISSING'],
    [403, 'auth', 'PERMISSION_DENIED'],
    [404, 'bad_request', 'NOT_FOUND'],
    [429, 'rate_limit', 'RESOURCE_EXHAUSTED'],
    [500, 'overload', 'INTERNAL'],
    [502, 'overload', undefined],
    [503, 'overload', 'UNAVAILABLE'],
    [504, 'timeout', 'DEADLINE_EXCEEDED'],
  ] as const)('classifies status %i as %s', async (status, kind, code) => {
    fault(`status:${status}`, 2);
    const whole = await failure(completeOnce(geminiAdapter, ask('hi'), target, OPTIONS));
    expect(whole).toMatchObject({ kind, status });
    expect(whole.providerCode).toBe(code);
    if (status === 429) expect(whole.retryAfterMs).toBe(2000);
    const streamed = await streamFailure(ask('hi'));
    expect(streamed.failure).toMatchObject({ kind, status });
  });

  it('classifies an unknown model (404 NOT_FOUND) as bad_request', async () => {
    expect(
      await failure(completeOnce(geminiAdapter, ask('hi'), { ...target, model: 'gemini-0-nano' }, OPTIONS)),
    ).toMatchObject({ kind: 'bad_request', status: 404 });
  });

  it('a stream cut before any finishReason is a connection failure', async () => {
    fault('reset_after_chunks:2');
    const { failure: cut, chunks } = await streamFailure(ask('[sim:words=6]'));
    expect(cut.kind).toBe('connection');
    // A TCP reset may discard events the client had not read yet: at most the two sent arrive.
    expect('word1 word2'.startsWith(textOf(chunks))).toBe(true);
    expect(finishOf(chunks)).toEqual([]);
  });

  it('an unreadable event is a malformed failure', async () => {
    fault('malformed_chunk:1');
    const { failure: bad, chunks } = await streamFailure(ask('[sim:words=6]'));
    expect(bad.kind).toBe('malformed');
    expect(textOf(chunks)).toBe('word1');
  });

  it('an in-band {"error"} event is classified like its HTTP status', async () => {
    const overloaded = await streamFailure(ask('[sim:words=6] [sim:stream_error=503]'));
    expect(overloaded.failure).toMatchObject({ kind: 'overload', status: 503, providerCode: 'UNAVAILABLE' });
    expect(textOf(overloaded.chunks)).toBe('word1');
    const limited = await streamFailure(ask('[sim:words=6] [sim:stream_error=429]'));
    expect(limited.failure).toMatchObject({ kind: 'rate_limit', retryAfterMs: 2000 });
  });

  it('headers arriving after the timeout are a timeout', async () => {
    fault('delay_headers:1000', 2);
    expect((await failure(completeOnce(geminiAdapter, ask('hi'), target, { ...OPTIONS, timeoutMs: 150 }))).kind).toBe(
      'timeout',
    );
    expect((await streamFailure(ask('hi'), 150)).failure.kind).toBe('timeout');
  });
});

describe('classifyError and translator details', () => {
  const status = (code: number, rpc: string, message: string, details: Json[] = []) =>
    JSON.stringify({ error: { code, message, status: rpc, details } });

  it('reads RetryInfo.retryDelay without headers, and a per-day quota as quota', () => {
    const minute = status(429, 'RESOURCE_EXHAUSTED', 'Please retry in 36.4s.', [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '36s' },
    ]);
    expect(geminiAdapter.classifyError(429, new Headers(), minute, 'google')).toMatchObject({
      kind: 'rate_limit',
      retryAfterMs: 36_000,
    });

    const day = status(429, 'RESOURCE_EXHAUSTED', 'quota', [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20s' },
    ]);
    expect(geminiAdapter.classifyError(429, new Headers(), day, 'google').kind).toBe('quota');

    const tooLong = status(429, 'RESOURCE_EXHAUSTED', 'later', [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3600s' },
    ]);
    expect(geminiAdapter.classifyError(429, new Headers({ 'retry-after': '5' }), tooLong, 'google').retryAfterMs).toBe(
      5000,
    );
  });

  it('reads the array-wrapped envelope and non-JSON bodies', () => {
    const wrapped = `[${status(503, 'UNAVAILABLE', 'The model is overloaded.')}]`;
    expect(geminiAdapter.classifyError(503, new Headers(), wrapped, 'google')).toMatchObject({
      kind: 'overload',
      providerCode: 'UNAVAILABLE',
      message: 'google answered 503: The model is overloaded.',
    });
    expect(
      geminiAdapter.classifyError(
        400,
        new Headers(),
        status(400, 'FAILED_PRECONDITION', 'User location is not supported'),
        'google',
      ).kind,
    ).toBe('quota');
    expect(
      geminiAdapter.classifyError(502, new Headers(), '<html><b>502.</b> That’s an error.</html>', 'google'),
    ).toMatchObject({ kind: 'overload', message: 'google answered 502: 502. That’s an error.' });
  });

  it('counts thoughts as completion, reports cached tokens, and skips thought parts', () => {
    const translator = geminiAdapter.createStreamTranslator(target);
    const event = (payload: Json) => translator.onEvent({ data: JSON.stringify(payload) });
    const first = event({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: 'Hi' }] }, index: 0 },
      ],
      usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
    });
    expect(textOf(first)).toBe('Hi');
    const last = event({
      candidates: [{ content: { role: 'model', parts: [{ text: '!' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 10,
        cachedContentTokenCount: 4,
        candidatesTokenCount: 2,
        thoughtsTokenCount: 5,
        totalTokenCount: 17,
      },
    });
    expect(finishOf(last)).toEqual(['stop']);
    expect(translator.onEnd()).toEqual([]);
    expect(translator.usage()).toEqual({
      prompt_tokens: 10,
      completion_tokens: 7,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });
  });

  it('ends without a finishReason → connection; a bare or wrapped error event → classified', () => {
    const cut = geminiAdapter.createStreamTranslator(target);
    cut.onEvent({ data: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'x' }] } }] }) });
    expect(() => cut.onEnd()).toThrow(
      expect.objectContaining({ failure: expect.objectContaining({ kind: 'connection' }) }),
    );

    const wrapped = geminiAdapter.createStreamTranslator(target);
    expect(() => wrapped.onEvent({ data: `[${status(500, 'INTERNAL', 'boom')}]` })).toThrow(
      expect.objectContaining({ failure: expect.objectContaining({ kind: 'overload', status: 500 }) }),
    );
  });
});
