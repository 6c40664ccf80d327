import { SseParser, type SseEvent } from '../../../lambdas/providers/sse-parser.js';
import { anthropicSimulator } from '../../../local/simulators/anthropic.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';

/**
 * The Anthropic simulator over plain HTTP: what the real Messages API would answer (headers,
 * validation 400s, error envelopes, the exact named-event stream grammar), so the adapter
 * tests prove translation against a faithful peer.
 */

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator(anthropicSimulator, 0);
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.requests.length = 0;
});

const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };
const TOOL = {
  name: 'get_weather',
  description: 'Weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function body(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: text }], ...extra };
}

function post(payload: unknown, headers: Record<string, string> = HEADERS): Promise<Response> {
  return fetch(`${sim.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(payload) });
}

async function json(response: Response): Promise<Record<string, any>> {
  return (await response.json()) as Record<string, any>;
}

async function events(response: Response): Promise<SseEvent[]> {
  const parser = new SseParser();
  const out = parser.push(new Uint8Array(await response.arrayBuffer()));
  return [...out, ...parser.end()];
}

async function fault(spec: string, times = 1): Promise<void> {
  const res = await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: spec, times }) });
  expect(res.status).toBe(201);
}

async function expectInvalid(payload: unknown, pattern: RegExp): Promise<void> {
  const res = await post(payload);
  expect(res.status).toBe(400);
  const error = await json(res);
  expect(error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  expect(error['error'].message).toMatch(pattern);
}

describe('headers and credentials', () => {
  it('rejects a missing or bad x-api-key with 401 authentication_error', async () => {
    const { 'x-api-key': _key, ...noKey } = HEADERS;
    for (const headers of [noKey, { ...HEADERS, 'x-api-key': 'bad-key' }, { ...HEADERS, 'x-api-key': 'invalid' }]) {
      const res = await post(body('hi'), headers);
      expect(res.status).toBe(401);
      const error = await json(res);
      expect(error).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
      });
      expect(error['request_id']).toMatch(/^req_/);
      expect(res.headers.get('request-id')).toBe(error['request_id']);
    }
  });

  it('takes the key as Authorization: Bearer too, as the official SDK sends it since 1.0', async () => {
    const { 'x-api-key': key, ...noKey } = HEADERS;
    expect((await post(body('hi'), { ...noKey, authorization: `Bearer ${key}` })).status).toBe(200);
    const bad = await post(body('hi'), { ...noKey, authorization: 'Bearer bad-key' });
    expect(bad.status).toBe(401);
    expect(await json(bad)).toMatchObject({ error: { type: 'authentication_error' } });
  });

  it('rejects a missing anthropic-version with 400 invalid_request_error', async () => {
    const { 'anthropic-version': _version, ...noVersion } = HEADERS;
    const res = await post(body('hi'), noVersion);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/anthropic-version/) },
    });
  });

  it('answers 200s with request-id, organization and rate-limit headers', async () => {
    const res = await post(body('hi'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('request-id')).toMatch(/^req_011CSim/);
    expect(res.headers.get('anthropic-organization-id')).toBeTruthy();
    for (const family of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
      expect(Number(res.headers.get(`anthropic-ratelimit-${family}-limit`))).toBeGreaterThan(0);
      expect(res.headers.get(`anthropic-ratelimit-${family}-reset`)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    const first = Number(res.headers.get('anthropic-ratelimit-requests-remaining'));
    const again = await post(body('hi'));
    await again.arrayBuffer();
    expect(Number(again.headers.get('anthropic-ratelimit-requests-remaining'))).toBe(first - 1);
  });
});

describe('request validation', () => {
  it('requires max_tokens and a model', async () => {
    const { max_tokens: _m, ...noMax } = body('hi');
    await expectInvalid(noMax, /^max_tokens: Field required/);
    const { model: _model, ...noModel } = body('hi');
    await expectInvalid(noModel, /^model: Field required/);
  });

  it('rejects unknown top-level fields, as the API does', async () => {
    await expectInvalid(body('hi', { frequency_penalty: 0.5 }), /frequency_penalty: Extra inputs are not permitted/);
  });

  it('rejects a temperature above 1', async () => {
    await expectInvalid(body('hi', { temperature: 1.5 }), /^temperature/);
  });

  it('requires alternating roles that start with user, and no system role', async () => {
    await expectInvalid(
      body('', { messages: [{ role: 'assistant', content: 'hi' }] }),
      /first message must use the "user" role/,
    );
    await expectInvalid(
      body('', {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      }),
      /roles must alternate/,
    );
    await expectInvalid(
      body('', {
        messages: [
          { role: 'system', content: 'x' },
          { role: 'user', content: 'b' },
        ],
      }),
      /top-level `system`/,
    );
  });

  it('rejects empty text blocks and bad image sources', async () => {
    await expectInvalid(body('', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }), /non-empty/);
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AAAA' } };
    await expectInvalid(body('', { messages: [{ role: 'user', content: [image] }] }), /media_type/);
  });

  it('requires tool_result ids to answer the previous turn tool_use ids, results first', async () => {
    const assistant = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
    };
    const base = { tools: [TOOL] };
    await expectInvalid(
      body('', {
        ...base,
        messages: [
          { role: 'user', content: 'q' },
          assistant,
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'x' }] },
        ],
      }),
      /unexpected `tool_use_id`.*toolu_2/,
    );
    await expectInvalid(
      body('', {
        ...base,
        messages: [{ role: 'user', content: 'q' }, assistant, { role: 'user', content: 'no results' }],
      }),
      /without `tool_result` blocks immediately after: toolu_1/,
    );
    await expectInvalid(
      body('', {
        ...base,
        messages: [
          { role: 'user', content: 'q' },
          assistant,
          {
            role: 'user',
            content: [
              { type: 'text', text: 'first' },
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' },
            ],
          },
        ],
      }),
      /must come before any other content/,
    );
    const ok = await post(
      body('', {
        ...base,
        messages: [
          { role: 'user', content: 'q' },
          assistant,
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        ],
      }),
    );
    expect(ok.status).toBe(200);
    expect((await json(ok))['content'][0].text).toBe('The get_weather tool returned: sunny');
  });

  it('answers a tool result in text, even after a user message that asked for a tool', async () => {
    const message = await json(
      await post(
        body('', {
          tools: [TOOL],
          messages: [
            { role: 'user', content: 'weather [sim:tools=2] [sim:empty_args]' },
            {
              role: 'assistant',
              content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
            },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
          ],
        }),
      ),
    );
    expect(message['stop_reason']).toBe('end_turn');
    expect(message['content']).toEqual([{ type: 'text', text: 'The get_weather tool returned: sunny' }]);
  });

  it('validates tools and tool_choice', async () => {
    await expectInvalid(body('hi', { tools: [{ name: 't', input_schema: { type: 'string' } }] }), /input_schema.type/);
    await expectInvalid(
      body('hi', { tools: [TOOL], tool_choice: { type: 'tool', name: 'nope' } }),
      /not found in tools/,
    );
  });

  it('answers 404 not_found_error for a model it does not serve', async () => {
    const res = await post(body('hi', { model: 'gpt-5' }));
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', message: 'model: gpt-5' },
    });
  });
});

describe('non-streaming messages', () => {
  it('answers a message with content blocks, the dated model and usage with cache fields', async () => {
    const res = await post(body('[sim:reply=Hello there]', { system: 'Be brief.' }));
    const message = await json(res);
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Hello there' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    expect(message['id']).toMatch(/^msg_/);
    expect(message['usage'].input_tokens).toBeGreaterThan(0);
  });

  it('answers tool_use blocks with object input and toolu_ ids', async () => {
    const message = await json(await post(body('[sim:tools=2]', { tools: [TOOL] })));
    expect(message['stop_reason']).toBe('tool_use');
    expect(message['content']).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'city-value' } },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'city-value' } },
    ]);
    expect(message['content'][0].id).not.toBe(message['content'][1].id);
  });

  it('maps the script finish reasons to stop_reason values', async () => {
    const cases: [Record<string, unknown>, string, string | null][] = [
      [body('[sim:finish=content_filter]'), 'refusal', null],
      [body('[sim:words=10]', { max_tokens: 3 }), 'max_tokens', null],
      [body('[sim:reply=one two STOP three]', { stop_sequences: ['STOP'] }), 'stop_sequence', 'STOP'],
    ];
    for (const [payload, stopReason, stopSequence] of cases) {
      const message = await json(await post(payload));
      expect(message['stop_reason']).toBe(stopReason);
      expect(message['stop_sequence']).toBe(stopSequence);
    }
  });

  it('reports cache reads and writes on directive, keeping the prompt total', async () => {
    const plain = await json(await post(body('[sim:reply=ok] [sim:cache_read=0]')));
    const cached = await json(await post(body('[sim:reply=ok] [sim:cache_read=5]', {})));
    const u = cached['usage'];
    expect(u.cache_read_input_tokens).toBe(5);
    expect(u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens).toBe(
      plain['usage'].input_tokens,
    );
  });
});

describe('streaming', () => {
  const ORDER =
    /^message_start (ping )?(content_block_start (content_block_delta |ping )*content_block_stop (ping )?)*message_delta message_stop $/;

  it('sends the exact event order with matching event names, pings before the first block', async () => {
    const res = await post(body('[sim:words=5]', { stream: true }));
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const list = await events(res);
    const names = list.map((e) => e.event);
    expect(names.join(' ') + ' ').toMatch(ORDER);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
    expect(names.filter((n) => n === 'ping').length).toBeGreaterThanOrEqual(2);
    for (const event of list) expect(JSON.parse(event.data).type).toBe(event.event);
    const text = list
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => JSON.parse(e.data).delta.text)
      .join('');
    expect(text).toBe('word1 word2 word3 word4 word5');
  });

  it('reports input usage in message_start and cumulative output usage in message_delta', async () => {
    const list = await events(await post(body('[sim:words=7]', { stream: true })));
    const start = JSON.parse(list[0]!.data).message;
    expect(start).toMatchObject({
      content: [],
      stop_reason: null,
      usage: { output_tokens: 1, cache_read_input_tokens: 0 },
    });
    expect(start.usage.input_tokens).toBeGreaterThan(0);
    const delta = JSON.parse(list.find((e) => e.event === 'message_delta')!.data);
    expect(delta).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 7 },
    });
  });

  it('streams tool input as input_json_delta fragments: "" first, none valid alone', async () => {
    const list = await events(await post(body('[sim:tools=2]', { stream: true, tools: [TOOL] })));
    const starts = list.filter((e) => e.event === 'content_block_start').map((e) => JSON.parse(e.data));
    expect(starts.map((s) => s.index)).toEqual([0, 1]);
    for (const start of starts) {
      expect(start.content_block).toEqual({
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/),
        name: 'get_weather',
        input: {},
      });
      const fragments = list
        .filter((e) => e.event === 'content_block_delta' && JSON.parse(e.data).index === start.index)
        .map((e) => JSON.parse(e.data).delta)
        .map((d) => {
          expect(d.type).toBe('input_json_delta');
          return d.partial_json as string;
        });
      expect(fragments[0]).toBe('');
      expect(fragments.length).toBeGreaterThanOrEqual(3);
      for (const fragment of fragments.slice(1)) expect(() => JSON.parse(fragment)).toThrow();
      expect(JSON.parse(fragments.join(''))).toEqual({ city: 'city-value' });
    }
    expect(JSON.parse(list.find((e) => e.event === 'message_delta')!.data).delta.stop_reason).toBe('tool_use');
  });

  it('streams only the "" fragment for a call without arguments', async () => {
    const list = await events(await post(body('[sim:tool] [sim:empty_args]', { stream: true, tools: [TOOL] })));
    const deltas = list.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data).delta);
    expect(deltas).toEqual([{ type: 'input_json_delta', partial_json: '' }]);
  });

  it('streams a thinking block with thinking and signature deltas when thinking is enabled', async () => {
    const list = await events(
      await post(
        body('[sim:reply=Done]', {
          stream: true,
          max_tokens: 2048,
          thinking: { type: 'enabled', budget_tokens: 1024 },
        }),
      ),
    );
    const first = JSON.parse(list.find((e) => e.event === 'content_block_start')!.data);
    expect(first.content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
    const kinds = list.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data).delta.type);
    expect(kinds).toContain('thinking_delta');
    expect(kinds.indexOf('signature_delta')).toBe(kinds.lastIndexOf('thinking_delta') + 1);
    expect(kinds[kinds.length - 1]).toBe('text_delta');
  });

  it('sends event: error after the first delta and no message_stop on [sim:stream_error=…]', async () => {
    const list = await events(await post(body('[sim:words=5] [sim:stream_error=overloaded_error]', { stream: true })));
    const names = list.map((e) => e.event);
    expect(names).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'error']);
    expect(JSON.parse(list[4]!.data)).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
  });
});

describe('injected errors', () => {
  const EXPECTED: [number, string][] = [
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [504, 'timeout_error'],
    [529, 'overloaded_error'],
  ];

  it.each(EXPECTED)('status %i answers the %s envelope', async (status, type) => {
    await fault(`status:${status}`);
    const res = await post(body('hi'));
    expect(res.status).toBe(status);
    const error = await json(res);
    expect(error).toEqual({
      type: 'error',
      error: { type, message: expect.any(String) },
      request_id: expect.stringMatching(/^req_/),
    });
    expect(res.headers.get('request-id')).toBe(error['request_id']);
  });

  it('429 carries retry-after and anthropic-ratelimit-* headers', async () => {
    await fault('status:429');
    const res = await post(body('hi'));
    await res.arrayBuffer();
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(res.headers.get('anthropic-ratelimit-tokens-reset')).toMatch(/Z$/);
  });

  it('502 answers a non-JSON proxy page', async () => {
    await fault('status:502');
    const res = await post(body('hi'));
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/<html>/);
  });
});

describe('capture and listings', () => {
  it('captures each request with its headers and body', async () => {
    await (await post(body('captured', { temperature: 0.3 }))).arrayBuffer();
    const { requests } = (await (await fetch(`${sim.url}/__sim/requests`)).json()) as { requests: any[] };
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
    });
    expect(requests[0].body).toMatchObject({ temperature: 0.3, messages: [{ role: 'user', content: 'captured' }] });
  });

  it('lists models with has_more, first_id and last_id, paged by limit and after_id', async () => {
    const get = async (query: string) => json(await fetch(`${sim.url}/v1/models${query}`, { headers: HEADERS }));
    const all = await get('');
    expect(all['has_more']).toBe(false);
    expect(all['first_id']).toBe(all['data'][0].id);
    expect(all['last_id']).toBe(all['data'][all['data'].length - 1].id);
    expect(all['data'][0]).toEqual({
      type: 'model',
      id: 'claude-sonnet-4-5-20250929',
      display_name: 'Claude Sonnet 4.5',
      created_at: expect.any(String),
    });
    const page = await get('?limit=2');
    expect(page['data']).toHaveLength(2);
    expect(page['has_more']).toBe(true);
    const next = await get(`?limit=2&after_id=${page['last_id']}`);
    expect(next['first_id']).toBe(all['data'][2].id);
    const one = await fetch(`${sim.url}/v1/models/claude-sonnet-4-5`, { headers: HEADERS });
    expect((await json(one))['id']).toBe('claude-sonnet-4-5-20250929');
  });

  it('counts tokens', async () => {
    const res = await fetch(`${sim.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect((await json(res))['input_tokens']).toBeGreaterThan(0);
  });
});
