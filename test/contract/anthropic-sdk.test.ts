import Anthropic, { APIError, RateLimitError } from '@anthropic-ai/sdk';
import type {
  Message,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import { anthropicSimulator } from '../../local/simulators/anthropic.js';
import { startSimulator, type RunningSimulator } from '../../local/simulators/harness.js';

/**
 * The Anthropic simulator read only by the official `@anthropic-ai/sdk`, never by the
 * product's own SSE parser or adapter: a misreading of the Messages wire format shared by the
 * simulator and the adapter (which is tested against it) would pass everywhere else, but the
 * SDK reads the API the way Anthropic does. Nothing here waits on the clock; retries are off
 * so an injected error surfaces on the first answer.
 */

const MODEL = 'claude-haiku-4-5';
const SNAPSHOT = 'claude-haiku-4-5-20251001';
const SYSTEM = 'You are terse. Answer in one line.';
const WEATHER: Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
/** A 1×1 transparent PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** Tokens the simulated model counts per image (local/simulators/script.ts). */
const IMAGE_TOKENS = 85;

let sim: RunningSimulator;
let client: Anthropic;

beforeAll(async () => {
  sim = await startSimulator(anthropicSimulator, 0);
  client = new Anthropic({ apiKey: 'sk-ant-contract', baseURL: sim.url, maxRetries: 0 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.requests.length = 0;
});

async function injectFault(fault: string): Promise<void> {
  const response = await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault }) });
  expect(response.status).toBe(201);
}

const ask = (text: string): MessageParam[] => [{ role: 'user', content: text }];

/** Streams a message through the SDK's MessageStream: every raw event, the text deltas, the final message. */
async function streamed(
  params: Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'>,
): Promise<{ events: RawMessageStreamEvent[]; deltas: string[]; final: Message }> {
  const stream = client.messages.stream(params);
  const deltas: string[] = [];
  stream.on('text', (delta) => deltas.push(delta));
  const events: RawMessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, deltas, final: await stream.finalMessage() };
}

function toolUses(message: Message): ToolUseBlock[] {
  return message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
}

function textOf(message: Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('messages.create, not streamed', () => {
  it('answers a message the SDK types in full, with the system prompt counted in the usage', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      system: SYSTEM,
      messages: ask('What is the capital of France?'),
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: SNAPSHOT,
      stop_reason: 'end_turn',
      stop_sequence: null,
      content: [{ type: 'text', text: `Simulated reply from ${MODEL} — you said: What is the capital of France?` }],
    });
    expect(message.id).toMatch(/^msg_/);
    // The SDK surfaces the request id from the response headers.
    expect(message._request_id).toMatch(/^req_/);

    const withoutSystem = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: ask('What is the capital of France?'),
    });
    // The system prompt is one more message in the count: 3 framing tokens + ⌈34 / 4⌉.
    expect(message.usage.input_tokens - withoutSystem.usage.input_tokens).toBe(3 + Math.ceil(SYSTEM.length / 4));
    expect(textOf(withoutSystem)).toBe(textOf(message));
  });

  it('reports usage the SDK reads: positive counts that count_tokens agrees with', async () => {
    const params = { model: MODEL, system: SYSTEM, messages: ask('Name three primes.') };
    const message = await client.messages.create({ ...params, max_tokens: 256 });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    // One output token per word of the answer.
    expect(message.usage.output_tokens).toBe(textOf(message).split(' ').length);
    expect(message.usage.cache_creation_input_tokens).toBe(0);
    expect(message.usage.cache_read_input_tokens).toBe(0);
    const counted = await client.messages.countTokens(params);
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
  });

  it('stops on a stop sequence and names it', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      stop_sequences: ['STOP'],
      messages: ask('[sim:reply=one two STOP three] go'),
    });
    expect(message).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
    expect(textOf(message)).toBe('one two ');
  });

  it('splits the prompt count into uncached input, cache writes and cache reads, streamed or not', async () => {
    const params = { model: MODEL, max_tokens: 64, messages: ask('[sim:cache_read=4][sim:cache_write=3] Hello.') };
    const message = await client.messages.create(params);
    expect(message.usage).toMatchObject({ cache_read_input_tokens: 4, cache_creation_input_tokens: 3 });
    // Total input = input_tokens + cache writes + cache reads: the whole prompt count_tokens reports.
    const { input_tokens: whole } = await client.messages.countTokens({ model: MODEL, messages: params.messages });
    expect(message.usage.input_tokens + 3 + 4).toBe(whole);
    const { final } = await streamed(params);
    expect(final.usage).toMatchObject({
      input_tokens: message.usage.input_tokens,
      cache_creation_input_tokens: 3,
      cache_read_input_tokens: 4,
      output_tokens: message.usage.output_tokens,
    });
  });

  it('reports cache writes by time in cache_creation and thinking in output_tokens, streamed or not', async () => {
    const params = {
      model: MODEL,
      max_tokens: 64,
      messages: ask('[sim:cache_write=3][sim:cache_write_1h=2][sim:reasoning=6][sim:words=4] Hello.'),
    };
    const message = await client.messages.create(params);
    expect(message.content[0]).toMatchObject({ type: 'thinking' });
    expect(message.usage).toMatchObject({
      cache_creation_input_tokens: 5,
      cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 2 },
      cache_read_input_tokens: 0,
      output_tokens: 4 + 6,
    });
    const { input_tokens: whole } = await client.messages.countTokens({ model: MODEL, messages: params.messages });
    expect(message.usage.input_tokens + 5).toBe(whole);
    const { final } = await streamed(params);
    expect(final.usage).toMatchObject({
      input_tokens: message.usage.input_tokens,
      cache_creation_input_tokens: 5,
      cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 2 },
      output_tokens: 10,
    });
  });

  it('stops at max_tokens with the reason and the count the SDK reports', async () => {
    const message = await client.messages.create({ model: MODEL, max_tokens: 3, messages: ask('[sim:words=10] go') });
    expect(message.stop_reason).toBe('max_tokens');
    expect(textOf(message)).toBe('word1 word2 word3');
    expect(message.usage.output_tokens).toBe(3);
  });
});

describe('messages.stream', () => {
  it('streams the same message as the plain answer: text, stop reason and usage', async () => {
    const params = { model: MODEL, max_tokens: 256, system: SYSTEM, messages: ask('Tell me about rivers.') };
    const whole = await client.messages.create(params);
    const { events, deltas, final } = await streamed(params);

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(textOf(whole));
    expect(textOf(final)).toBe(textOf(whole));
    expect(final.stop_reason).toBe('end_turn');
    expect(final.model).toBe(SNAPSHOT);
    expect(final.usage.input_tokens).toBe(whole.usage.input_tokens);
    expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);

    // The grammar as the SDK yields it (pings are dropped by the SDK): message_start first,
    // message_stop last, one message_delta carrying the cumulative output count.
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types[types.length - 1]).toBe('message_stop');
    expect(types[types.length - 2]).toBe('message_delta');
    const start = events[0] as Anthropic.RawMessageStartEvent;
    expect(start.message.usage.input_tokens).toBe(whole.usage.input_tokens);
    const delta = events[events.length - 2] as Anthropic.RawMessageDeltaEvent;
    expect(delta.usage.output_tokens).toBe(whole.usage.output_tokens);
    expect(types.filter((type) => type === 'content_block_delta')).toHaveLength(deltas.length);
  });

  it('reads the stream the same when every write reaches it in 5-byte pieces', async () => {
    const params = { model: MODEL, max_tokens: 256, messages: ask('Ünïcödé crosses piece boundaries — ✓') };
    const whole = await client.messages.create(params);
    await injectFault('fragment_bytes:5');
    const { deltas, final } = await streamed(params);
    expect(deltas.join('')).toBe(textOf(whole));
    expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);
  });

  it('streams thinking before the text when thinking is on', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: ask('Think first.'),
    });
    const thoughts: string[] = [];
    const signatures: string[] = [];
    stream.on('thinking', (delta) => thoughts.push(delta));
    stream.on('signature', (signature) => signatures.push(signature));
    const final = await stream.finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    const thinking = final.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.thinking).toBe(thoughts.join(''));
    expect(thinking.thinking).not.toBe('');
    expect(signatures).toEqual([thinking.signature]);
    expect(thinking.signature).not.toBe('');
  });
});

describe('tools', () => {
  it('calls a tool and answers its result: a round trip the SDK types end to end', async () => {
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [WEATHER],
      messages: ask('[sim:tool] What is the weather in Paris?'),
    });
    expect(first.stop_reason).toBe('tool_use');
    const [call, ...others] = toolUses(first);
    expect(others).toEqual([]);
    expect(call).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'city-value' } });
    expect(call!.id).toMatch(/^toolu_/);

    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [WEATHER],
      messages: [
        ...ask('[sim:tool] What is the weather in Paris?'),
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call!.id, content: [{ type: 'text', text: 'Sunny, 21 °C' }] }],
        },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(textOf(second)).toBe('The get_weather tool returned: Sunny, 21 °C');
    expect(second.usage.input_tokens).toBeGreaterThan(first.usage.input_tokens);
  });

  it('honours tool_choice: a named tool is called without a directive, none forbids a call', async () => {
    const clock: Tool = { name: 'get_time', input_schema: { type: 'object', properties: {} } };
    const forced = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [WEATHER, clock],
      tool_choice: { type: 'tool', name: 'get_time' },
      messages: ask('Anything.'),
    });
    expect(toolUses(forced).map((call) => [call.name, call.input])).toEqual([['get_time', {}]]);
    const refused = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools: [WEATHER],
      tool_choice: { type: 'none' },
      messages: ask('[sim:tool] Anything.'),
    });
    expect(toolUses(refused)).toEqual([]);
    expect(refused.stop_reason).toBe('end_turn');
  });

  it('streams tool input as JSON fragments the SDK assembles into the same input', async () => {
    const params = {
      model: MODEL,
      max_tokens: 256,
      tools: [WEATHER, { ...WEATHER, name: 'get_forecast' }],
      messages: ask('[sim:tools=2] Weather and forecast for Paris?'),
    };
    const whole = await client.messages.create(params);
    const stream = client.messages.stream(params);
    const fragments: string[] = [];
    stream.on('inputJson', (fragment) => fragments.push(fragment));
    const final = await stream.finalMessage();

    expect(final.stop_reason).toBe('tool_use');
    expect(toolUses(final).map((call) => [call.id, call.name, call.input])).toEqual(
      toolUses(whole).map((call) => [call.id, call.name, call.input]),
    );
    expect(toolUses(final).map((call) => call.name)).toEqual(['get_weather', 'get_forecast']);
    // The fragments are the two inputs' JSON text, cut where no piece is whole JSON by itself.
    expect(fragments.join('')).toBe(
      toolUses(whole)
        .map((call) => JSON.stringify(call.input))
        .join(''),
    );
    expect(fragments.filter((fragment) => fragment !== '').length).toBeGreaterThan(2);
    expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);
  });
});

describe('images', () => {
  it('reads a base64 image block: the answer sees it and the input count includes it', async () => {
    const text = 'What is in this picture?';
    const withImage = await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
            { type: 'text', text },
          ],
        },
      ],
    });
    expect(textOf(withImage)).toBe(`Simulated reply from ${MODEL} — you said: ${text} (I see 1 image)`);
    const plain = await client.messages.create({ model: MODEL, max_tokens: 256, messages: ask(text) });
    expect(withImage.usage.input_tokens - plain.usage.input_tokens).toBe(IMAGE_TOKENS);
  });

  it('refuses an image of a media type the API does not take, as a typed 400', async () => {
    const request = client.messages.create({
      model: MODEL,
      max_tokens: 256,
      messages: [
        {
          role: 'user',
          content: [
            // Cast: the SDK's own types already forbid it, the API refuses it too.
            { type: 'image', source: { type: 'base64', media_type: 'image/bmp' as 'image/png', data: PNG_BASE64 } },
          ],
        },
      ],
    });
    const error = await request.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error' });
  });
});

describe('errors', () => {
  it.each([
    ['status:429', Anthropic.RateLimitError, 429, 'rate_limit_error'],
    ['status:529', Anthropic.OverloadedError, 529, 'overloaded_error'],
    ['status:500', Anthropic.InternalServerError, 500, 'api_error'],
    ['status:404', Anthropic.NotFoundError, 404, 'not_found_error'],
  ] as const)(
    'an injected %s is the SDK error %p with its status and type',
    async (fault, errorClass, status, type) => {
      await injectFault(fault);
      const error = await client.messages
        .create({ model: MODEL, max_tokens: 64, messages: ask('Hi.') })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toMatchObject({ status, type });
      expect((error as APIError).requestID).toMatch(/^req_/);
      expect(sim.requests).toHaveLength(1);
    },
  );

  it('a 503 from the fronting proxy (an HTML page) is the SDK ServiceUnavailableError, without an API type', async () => {
    await injectFault('status:503');
    const error = await client.messages
      .create({ model: MODEL, max_tokens: 64, messages: ask('Hi.') })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, type: null });
  });

  it('a 429 carries the retry-after the SDK would honour', async () => {
    await injectFault('status:429');
    const error = (await client.messages
      .create({ model: MODEL, max_tokens: 64, messages: ask('Hi.') })
      .catch((caught: unknown) => caught)) as RateLimitError;
    expect(error.headers?.get('retry-after')).toBe('1');
  });

  it('a bad key is an AuthenticationError, sent the way the SDK sends keys', async () => {
    const bad = new Anthropic({ apiKey: 'bad-key', baseURL: sim.url, maxRetries: 0 });
    const error = await bad.messages
      .create({ model: MODEL, max_tokens: 64, messages: ask('Hi.') })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error' });
  });

  it('an in-stream error event after the 200 is thrown as the typed API error, after the first text', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 256,
      messages: ask('[sim:stream_error=overloaded_error] Tell me a story.'),
    });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const error = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ type: 'overloaded_error', apiMessage: 'Overloaded' });
    expect(deltas).toEqual(['Simulated']);
  });

  it('the same directive without streaming is the matching HTTP status', async () => {
    const error = await client.messages
      .create({ model: MODEL, max_tokens: 64, messages: ask('[sim:stream_error=overloaded_error] Hi.') })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.OverloadedError);
    expect(error).toMatchObject({ status: 529 });
  });
});

describe('models', () => {
  it('pages through the model list with the SDK auto-pager', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list({ limit: 2 })) ids.push(model.id);
    expect(ids).toContain(SNAPSHOT);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(5);
    // Three pages of at most two.
    expect(sim.requests.filter((request) => request.path === '/v1/models')).toHaveLength(3);
  });
});
