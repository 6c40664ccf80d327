import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { adminKey, createKey, provisionAccount } from './support/provisioning.js';
import { SimulatorControl, simulatedReply } from './support/simulators.js';

/**
 * The Responses API (docs/interface.md §4.13) over loopback, driven by the official openai SDK's
 * `responses.create`, `responses.stream`, `retrieve` and `delete`, against each family's
 * simulator: the answers, the events, tool round trips, chaining by `previous_response_id`, the
 * stored responses' ownership, and the chat core's budgets, metering and request log behind them.
 */
const local = useGateway({
  account: 'responses',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'openai',
});
let client: OpenAI;

beforeAll(() => {
  client = new OpenAI({ apiKey: local.key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
});

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/** The output as the stream's last event gave it, without the SDK's own `parsed` on text parts. */
const withoutParsed = (output: unknown): unknown =>
  JSON.parse(JSON.stringify(output, (key, value: unknown) => (key === 'parsed' ? undefined : value)));

/** The upstream requests the simulator saw whose last user turn holds `marker`. */
async function upstreamBodies(simulator: SimulatorControl, marker: string): Promise<any[]> {
  const requests = await simulator.requests();
  return requests.map((request) => request.body).filter((body) => JSON.stringify(body ?? {}).includes(marker));
}

describe.each([
  ['gpt', 'gpt-5', 'openai'],
  ['claude', 'claude-sonnet-4-5', 'anthropic'],
  ['gemini', 'gemini-2.5-pro', 'google'],
  ['grok', 'grok-4', 'xai'],
  ['deepseek', 'deepseek/deepseek-v3.2', 'openrouter'],
  ['nova', 'amazon.nova-pro-v1:0', 'bedrock'],
])('%s through responses.create and responses.stream', (alias, model, provider) => {
  test('a plain response: the text, its usage, the headers, the ledger entry and the request log row', async () => {
    const said = `hello ${alias} ${Math.random()}`;
    const { data, response } = await client.responses
      .create({ model: alias, instructions: 'Be brief.', input: said })
      .withResponse();
    expect(data).toMatchObject({
      object: 'response',
      status: 'completed',
      model,
      instructions: 'Be brief.',
      error: null,
      incomplete_details: null,
      previous_response_id: null,
      store: true,
    });
    expect(data.id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(data.output).toHaveLength(1);
    expect(data.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(data.output_text).toMatch(simulatedReply(model, said));
    const usage = data.usage!;
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-model-used')).toBe(model);
    expect(response.headers.get('x-cache')).toBe('MISS');
    const requestId = response.headers.get('x-request-id')!;
    const [entry, ...more] = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({
      model,
      provider,
      route: 'responses-create',
      promptTokens: usage.input_tokens,
      completionTokens: usage.output_tokens,
      outcome: 'ok',
    });
    const log = await call(local.gateway.url('/api/v1/requests?route=responses-create'), {
      headers: bearer(local.key),
    });
    expect(log.status).toBe(200);
    expect(log.body.data.requests.map((row: { id: string }) => row.id)).toContain(requestId);
  });

  test('a streamed response: the event grammar, in order, and finalResponse() equal to the last event', async () => {
    const said = `stream ${alias} ${Math.random()}`;
    const stream = client.responses.stream({ model: alias, input: said });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();

    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, i) => i));
    const types = events.map((event) => event.type);
    const deltas = types.filter((type) => type === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const last = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(final.output_text).toMatch(simulatedReply(model, said));
    // The SDK adds `parsed` to each text part of its final Response; the rest is the event's.
    expect(withoutParsed(final.output)).toEqual(last.response.output);
    expect(final.usage).toEqual(last.response.usage);
    expect(final.usage!.output_tokens).toBeGreaterThan(0);
    // Kept before the last event went out: retrievable at once, as streamed.
    const stored = await client.responses.retrieve(final.id);
    expect(stored.output).toEqual(last.response.output);
  });

  test('a function tool round trip: the call, its output sent back by previous_response_id, the answer', async () => {
    const first = await client.responses.create({
      model: alias,
      input: `weather in Paris? [sim:tool] ${Math.random()}`,
      tools: [weatherTool],
    });
    expect(first.status).toBe('completed');
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls).toHaveLength(1);
    const toolCall = calls[0]!;
    expect(toolCall).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(toolCall.id).toMatch(/^fc_/);
    expect(JSON.parse(toolCall.arguments)).toEqual({ city: 'city-value' });

    const second = await client.responses.create({
      model: alias,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: toolCall.call_id, output: '{"temperature": 21}' }],
      tools: [weatherTool],
    });
    expect(second.status).toBe('completed');
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output.map((item) => item.type)).toEqual(['message']);
    expect(second.output_text.length).toBeGreaterThan(0);
  });

  test('parallel tool calls, streamed and not, give the same calls', async () => {
    const request = { model: alias, input: `weather please [sim:tools=2] ${Math.random()}`, tools: [weatherTool] };
    const whole = await client.responses.create(request);
    const stream = client.responses.stream(request);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const streamed = await stream.finalResponse();
    const callsOf = (output: typeof whole.output) =>
      output.flatMap((item) => (item.type === 'function_call' ? [[item.name, item.arguments, item.status]] : []));
    expect(callsOf(whole.output)).toHaveLength(2);
    expect(callsOf(streamed.output)).toEqual(callsOf(whole.output));
    expect(types.filter((type) => type === 'response.function_call_arguments.done')).toHaveLength(2);
    expect(types.at(-1)).toBe('response.completed');
  });
});

describe('previous_response_id', () => {
  test('chains the conversation: the earlier turns reach the model, instructions are not carried over', async () => {
    const marker = `chain-${Math.random()}`;
    const first = await client.responses.create({
      model: 'gpt',
      instructions: 'Answer as a pirate.',
      input: `My name is Ada. ${marker}`,
    });
    const second = await client.responses.create({
      model: 'gpt',
      previous_response_id: first.id,
      input: 'What is my name?',
    });
    const third = await client.responses.create({
      model: 'gpt',
      previous_response_id: second.id,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'And again?' }] }],
    });
    expect(third.previous_response_id).toBe(second.id);
    const bodies = await upstreamBodies(local.simulator, marker);
    const last = bodies.find((body) => JSON.stringify(body).includes('And again?'));
    expect(last.messages).toEqual([
      { role: 'user', content: `My name is Ada. ${marker}` },
      { role: 'assistant', content: first.output_text },
      { role: 'user', content: 'What is my name?' },
      { role: 'assistant', content: second.output_text },
      { role: 'user', content: [{ type: 'text', text: 'And again?' }] },
    ]);
  });

  test('an unknown id, a deleted one and an unstored one are refused with 400 naming it', async () => {
    const unstored = await client.responses.create({ model: 'gpt', input: 'not kept', store: false });
    expect(unstored).toMatchObject({ store: false });
    const deleted = await client.responses.create({ model: 'gpt', input: 'kept, then deleted' });
    await client.responses.delete(deleted.id);
    for (const id of ['resp_0123456789abcdef', unstored.id, deleted.id, 'not-an-id']) {
      const refusal = await client.responses
        .create({ model: 'gpt', input: 'go on', previous_response_id: id })
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(OpenAI.BadRequestError);
      expect(refusal).toMatchObject({
        status: 400,
        code: 'previous_response_not_found',
        param: 'previous_response_id',
      });
    }
  });
});

describe('the chat core behind it', () => {
  test('fallback: the first target failing, another family answers and the headers say so', async () => {
    await local.simulator.fault('status:503', 1, 'gpt-5');
    const { data, response } = await client.responses
      .create({ model: 'gpt', input: `fall back ${Math.random()}`, retries: 0, fallback: ['claude'] } as never)
      .withResponse();
    expect(data).toMatchObject({ status: 'completed', model: 'claude-sonnet-4-5' });
    expect(response.headers.get('x-fallback-from')).toBe('gpt');
    expect(response.headers.get('x-model-used')).toBe('claude-sonnet-4-5');
  });

  test('guardrails: PII redacted before the model and in the answer, the header saying so', async () => {
    const marker = `pii-${Math.random()}`;
    const { data, response } = await client.responses
      .create(
        {
          model: 'gpt',
          input: `${marker} from bob@example.com [sim:reply_b64=${Buffer.from('Mail ada@example.com today').toString('base64')}]`,
        },
        { headers: { 'X-Guardrails': 'pii' } },
      )
      .withResponse();
    expect(response.headers.get('x-guardrail-status')).toBe('pii:redact');
    expect(data.output_text).toBe('Mail [REDACTED_EMAIL] today');
    const [sent] = await upstreamBodies(local.simulator, marker);
    expect(JSON.stringify(sent)).not.toContain('bob@example.com');
    expect(JSON.stringify(sent)).toContain('[REDACTED_EMAIL]');
  });

  test('the response cache: the same request again is a HIT with a new id, streamed ones never are', async () => {
    const request = { model: 'gpt', input: `cache me ${Math.random()}` };
    const first = await client.responses.create(request).withResponse();
    expect(first.response.headers.get('x-cache')).toBe('MISS');
    // The answer is cached after the response went out: ask again until it is there.
    let again = await client.responses.create(request).withResponse();
    for (let tries = 0; tries < 50 && again.response.headers.get('x-cache') !== 'HIT'; tries++) {
      await new Promise((done) => setTimeout(done, 100));
      again = await client.responses.create(request).withResponse();
    }
    expect(again.response.headers.get('x-cache')).toBe('HIT');
    expect(again.data.id).not.toBe(first.data.id);
    expect(again.data.output_text).toBe(first.data.output_text);
    const streamed = await client.responses.create({ ...request, stream: true }).withResponse();
    expect(streamed.response.headers.get('x-cache')).toBeNull();
  });
});

describe('stored responses', () => {
  test('retrieve answers the response as created; delete forgets it; both then answer 404', async () => {
    const created = await client.responses.create({ model: 'gpt', input: 'keep me', metadata: { topic: 'tests' } });
    const retrieved = await client.responses.retrieve(created.id);
    expect(JSON.parse(JSON.stringify(retrieved))).toEqual(JSON.parse(JSON.stringify(created)));
    expect(retrieved.metadata).toEqual({ topic: 'tests' });
    const deleted: unknown = await client.responses.delete(created.id);
    expect(deleted).toEqual({ id: created.id, object: 'response', deleted: true });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.responses.delete(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  test('a response of store: false is not retrievable', async () => {
    const created = await client.responses.create({ model: 'gpt', input: 'forget me', store: false });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("another account's response is not found, not deleted and not continued", async () => {
    const created = await client.responses.create({ model: 'gpt', input: 'mine only' });
    const stranger = await provisionAccount(local.gateway, 'responses-stranger');
    const { key } = await adminKey(local.gateway, { accountId: stranger.accountId, type: 'secret' });
    const theirs = new OpenAI({ apiKey: key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
    const missing = await theirs.responses.retrieve(created.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    await expect(theirs.responses.delete(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      theirs.responses.create({ model: 'gpt', input: 'continue', previous_response_id: created.id }),
    ).rejects.toMatchObject({ status: 400, param: 'previous_response_id' });
    // Still there for its owner.
    expect((await client.responses.retrieve(created.id)).id).toBe(created.id);
  });
});

describe('input and refusals', () => {
  const PIXEL =
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

  test('an image input reaches the model as an image part', async () => {
    const marker = `image-${Math.random()}`;
    const answer = await client.responses.create({
      model: 'gpt',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: `What is this? ${marker}` },
            { type: 'input_image', image_url: PIXEL, detail: 'low' },
          ],
        },
      ],
    });
    expect(answer.status).toBe('completed');
    const [body] = await upstreamBodies(local.simulator, marker);
    expect(body.messages.at(-1).content).toEqual([
      { type: 'text', text: `What is this? ${marker}` },
      { type: 'image_url', image_url: { url: PIXEL, detail: 'low' } },
    ]);
  });

  test.each([
    [
      'a file id',
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-123' }] }] },
      'input[0].content[0].file_id',
    ],
    [
      'an image URL that is not text',
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 5 }] }] },
      'input[0].content[0].image_url',
    ],
    ['a built-in tool', { input: 'x', tools: [{ type: 'web_search_preview' }] }, 'tools[0].type'],
    ['a background response', { input: 'x', background: true }, 'background'],
    [
      'too much metadata',
      { input: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_v, i) => [`k${i}`, 'v'])) },
      'metadata',
    ],
    [
      'a function output with no call before it',
      { input: [{ type: 'function_call_output', call_id: 'call_1', output: 'x' }] },
      'input[0].call_id',
    ],
    ['an item type of a built-in tool', { input: [{ type: 'web_search_call', id: 'ws_1' }] }, 'input[0].type'],
    [
      'a private image host',
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://10.0.0.1/a.png' }] }] },
      'input[0].content[0].image_url',
    ],
    [
      'a forced tool not offered',
      { input: 'x', tools: [weatherTool], tool_choice: { type: 'function', name: 'other' } },
      'tool_choice.name',
    ],
  ])('%s is refused with 400 naming the field', async (_what, body, param) => {
    const answer = await call(local.gateway.url('/api/v1/responses'), {
      headers: bearer(local.key),
      body: { model: 'gpt', ...body },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ param, type: 'invalid_request_error' });
    expect(answer.body.error.message).toContain(param);
  });

  test('a conversation too large to store is refused before the model is called; store: false takes it', async () => {
    const marker = `large-${Math.random()}`;
    // Random bytes as base64: text that compresses to about three quarters, beyond a stored item.
    const large = `${marker} ${Buffer.from(Array.from({ length: 540_000 }, () => Math.floor(Math.random() * 256))).toString('base64')}`;
    const refusal = await client.responses.create({ model: 'gpt', input: large }).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ status: 400, param: 'input' });
    expect((refusal as Error).message).toContain('store: false');
    expect(await upstreamBodies(local.simulator, marker)).toEqual([]);
    const unstored = await client.responses.create({ model: 'gpt', input: large, store: false });
    expect(unstored).toMatchObject({ status: 'completed', store: false });
  });

  test("a key's budget that cannot hold the call: 402 passes through, nothing streamed", async () => {
    const account = await provisionAccount(local.gateway, 'responses-budget');
    const { key } = await createKey(local.gateway, account, { budget: { limitUsd: 0.000001, period: 'total' } });
    const poor = new OpenAI({ apiKey: key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
    for (const stream of [false, true]) {
      const refusal = await poor.responses
        .create({ model: 'gpt', input: 'too dear', max_output_tokens: 1000, stream })
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(OpenAI.APIError);
      expect(refusal).toMatchObject({ status: 402, code: 'BUDGET_EXCEEDED' });
    }
  });

  test('a length finish is incomplete with max_output_tokens, streamed and not', async () => {
    const request = { model: 'gpt', input: `long answer [sim:finish=length] ${Math.random()}`, max_output_tokens: 16 };
    const whole = await client.responses.create(request);
    expect(whole).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const stream = client.responses.stream(request);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.incomplete');
    expect(await stream.finalResponse()).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  test('an upstream stream that breaks after it began ends with response.failed', async () => {
    await local.simulator.fault('reset_after_chunks:3', 1, 'gpt-5');
    const stream = client.responses.stream({ model: 'gpt', input: `cut ${Math.random()}`, retries: 0 } as never);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.failed');
    expect(final.status).toBe('failed');
    expect(final.error).toMatchObject({ code: 'server_error' });
  });
});
