import { SseParser, type SseEvent } from '../../../lambdas/providers/sse-parser.js';
import { geminiSimulator } from '../../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';

/**
 * The Gemini simulator over plain HTTP: what the real Developer API would answer (both key
 * forms, validation 400s, google.rpc error envelopes, SSE framed with \r\n\r\n and no [DONE],
 * the JSON-array stream form, toolConfig modes), so the adapter tests prove translation against
 * a faithful peer.
 */

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator(geminiSimulator, 0);
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.faults.clear();
  sim.requests.length = 0;
});

const KEY = 'AIza-test-key';
const MODEL = 'gemini-2.5-pro';
const WEATHER = {
  name: 'get_weather',
  description: 'Weather',
  parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
};
const TIME = {
  name: 'get_time',
  parameters: { type: 'OBJECT', properties: { zone: { type: 'STRING' } }, required: ['zone'] },
};

type Json = Record<string, any>;

function body(text: string, extra: Json = {}): Json {
  return { contents: [{ role: 'user', parts: [{ text }] }], ...extra };
}

function post(
  method: string,
  payload: unknown,
  options: { key?: string | null; query?: string; model?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.key !== null) headers['x-goog-api-key'] = options.key ?? KEY;
  const url = `${sim.url}/v1beta/models/${options.model ?? MODEL}:${method}${options.query ?? ''}`;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(payload) });
}

const generate = (payload: unknown, options?: Parameters<typeof post>[2]) => post('generateContent', payload, options);
const streamSse = (payload: unknown, options?: Parameters<typeof post>[2]) =>
  post('streamGenerateContent', payload, { ...options, query: '?alt=sse' });

async function json(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

function parse(raw: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(raw), ...parser.end()];
}

async function sseResponses(response: Response): Promise<Json[]> {
  return parse(await response.text()).map((event) => JSON.parse(event.data) as Json);
}

async function fault(spec: string, times = 1): Promise<void> {
  const res = await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: spec, times }) });
  expect(res.status).toBe(201);
}

const textOf = (response: Json): string =>
  (response['candidates']?.[0]?.content?.parts ?? []).map((p: Json) => p['text'] ?? '').join('');

async function expectInvalid(payload: unknown, pattern: RegExp): Promise<void> {
  const res = await generate(payload);
  expect(res.status).toBe(400);
  const { error } = await json(res);
  expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  expect(error.message).toMatch(pattern);
  expect(error.details[0]['@type']).toBe('type.googleapis.com/google.rpc.BadRequest');
}

describe('credentials', () => {
  it('takes the key from x-goog-api-key or from ?key=', async () => {
    const viaHeader = await generate(body('hi'));
    expect(viaHeader.status).toBe(200);
    const viaQuery = await post('generateContent', body('hi'), { key: null, query: `?key=${KEY}` });
    expect(viaQuery.status).toBe(200);
    expect(textOf(await json(viaQuery))).toBe(textOf(await json(viaHeader)));
  });

  it('answers a bad key with 400 INVALID_ARGUMENT carrying ErrorInfo API_KEY_INVALID', async () => {
    for (const options of [{ key: 'bad-key' }, { key: null, query: '?key=invalid-key' }]) {
      const res = await generate(body('hi'), options);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await json(res)).toEqual({
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: expect.arrayContaining([
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
              metadata: { service: 'generativelanguage.googleapis.com' },
            },
          ]),
        },
      });
    }
  });

  it('answers a missing key with 403 PERMISSION_DENIED', async () => {
    const res = await generate(body('hi'), { key: null });
    expect(res.status).toBe(403);
    expect((await json(res))['error']).toMatchObject({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: expect.stringMatching(/unregistered callers/),
    });
  });
});

describe('generateContent', () => {
  it('answers a GenerateContentResponse whose usage totals are sums', async () => {
    const res = await generate(body('hello [sim:reply=Paris is sunny.]'));
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer['candidates'][0]).toMatchObject({
      content: { role: 'model', parts: [{ text: 'Paris is sunny.' }] },
      finishReason: 'STOP',
      index: 0,
    });
    const usage = answer['usageMetadata'];
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.candidatesTokenCount);
    expect(usage.candidatesTokenCount).toBe(3);
    expect(answer['modelVersion']).toBe(MODEL);
    expect(typeof answer['responseId']).toBe('string');
  });

  it('reads systemInstruction, images and function responses into the script', async () => {
    const res = await generate({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'look' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a.jpg' } },
          ],
        },
      ],
    });
    expect(textOf(await json(res))).toMatch(/you said: look \(I see 2 images\)$/);

    const tool = await generate({
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: '21C' } } }] },
      ],
      tools: [{ functionDeclarations: [WEATHER] }],
    });
    expect(textOf(await json(tool))).toBe('The get_weather tool returned: 21C');
  });

  it('honours finish directives: length → MAX_TOKENS, content_filter → SAFETY, Gemini reasons verbatim', async () => {
    const length = await json(await generate(body('go [sim:finish=length]')));
    expect(length['candidates'][0].finishReason).toBe('MAX_TOKENS');
    expect(textOf(length)).not.toBe('');

    const filtered = await json(await generate(body('go [sim:finish=content_filter]')));
    expect(filtered['candidates'][0]).toMatchObject({
      finishReason: 'SAFETY',
      safetyRatings: expect.arrayContaining([expect.objectContaining({ blocked: true })]),
    });
    expect(filtered['candidates'][0].content).toBeUndefined();

    const recitation = await json(await generate(body('go [sim:finish=RECITATION]')));
    expect(recitation['candidates'][0].finishReason).toBe('RECITATION');

    const maxOutput = await json(
      await generate(body('go [sim:words=10]', { generationConfig: { maxOutputTokens: 4 } })),
    );
    expect(maxOutput['candidates'][0].finishReason).toBe('MAX_TOKENS');
    expect(textOf(maxOutput)).toBe('word1 word2 word3 word4');
  });

  it('blocks a prompt with 200, no candidates and promptFeedback.blockReason', async () => {
    const res = await generate(body('go [sim:block=PROHIBITED_CONTENT]'));
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer['candidates']).toBeUndefined();
    expect(answer['promptFeedback']).toMatchObject({ blockReason: 'PROHIBITED_CONTENT' });
  });
});

describe('toolConfig', () => {
  const tools = [{ functionDeclarations: [WEATHER, TIME] }];

  it('ANY always answers a whole functionCall with object args and an id, ending STOP', async () => {
    const answer = await json(
      await generate(body('what is up', { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' } } })),
    );
    const candidate = answer['candidates'][0];
    expect(candidate.finishReason).toBe('STOP');
    expect(candidate.content.parts).toHaveLength(1);
    const call = candidate.content.parts[0].functionCall;
    expect(call).toEqual({ name: 'get_weather', args: { city: 'city-value' }, id: expect.any(String) });
    expect(candidate.content.parts[0].thoughtSignature).toEqual(expect.any(String));
  });

  it('ANY with allowedFunctionNames calls the named function', async () => {
    const config = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } };
    const answer = await json(await generate(body('what is up', { tools, toolConfig: config })));
    expect(answer['candidates'][0].content.parts[0].functionCall).toMatchObject({
      name: 'get_time',
      args: { zone: 'zone-value' },
    });
  });

  it('answers a function response in text, even after a user turn that asked for a call', async () => {
    const answer = await json(
      await generate({
        contents: [
          { role: 'user', parts: [{ text: 'weather? [sim:tool]' }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: '21C' } } }] },
        ],
        tools,
      }),
    );
    expect(answer['candidates'][0].finishReason).toBe('STOP');
    expect(answer['candidates'][0].content.parts).toEqual([{ text: 'The get_weather tool returned: 21C' }]);
  });

  it('NONE never calls, even when asked to', async () => {
    const answer = await json(
      await generate(body('[sim:tool] go', { tools, toolConfig: { functionCallingConfig: { mode: 'NONE' } } })),
    );
    expect(answer['candidates'][0].content.parts[0].functionCall).toBeUndefined();
    expect(textOf(answer)).toMatch(/Simulated reply/);
  });

  it('AUTO follows the script: parallel calls on [sim:tools=2], ids omitted on [sim:no_call_ids]', async () => {
    const answer = await json(
      await generate(
        body('[sim:tools=2] [sim:no_call_ids]', { tools, toolConfig: { functionCallingConfig: { mode: 'AUTO' } } }),
      ),
    );
    const parts = answer['candidates'][0].content.parts;
    expect(parts.map((p: Json) => p['functionCall'].name)).toEqual(['get_weather', 'get_time']);
    expect(parts.every((p: Json) => p['functionCall'].id === undefined)).toBe(true);
  });
});

describe('validation', () => {
  it('rejects missing contents, empty parts, bad roles and unknown (snake_case) fields', async () => {
    await expectInvalid({}, /contents is not specified/);
    await expectInvalid({ contents: [{ role: 'user', parts: [] }] }, /parts must not be empty/);
    await expectInvalid({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, /valid role: user, model/);
    await expectInvalid({ ...body('x'), generation_config: { temperature: 1 } }, /Unknown name "generation_config"/);
    await expectInvalid(body('x', { generationConfig: { max_output_tokens: 5 } }), /Unknown name "max_output_tokens"/);
  });

  it('rejects string function args and function calls out of turn order', async () => {
    await expectInvalid(
      {
        contents: [
          { role: 'user', parts: [{ text: 'x' }] },
          { role: 'model', parts: [{ functionCall: { name: 'f', args: '{}' } }] },
        ],
      },
      /function_call\.args/,
    );
    await expectInvalid(
      { contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }] },
      /function call turn comes immediately after/,
    );
    await expectInvalid(
      {
        contents: [
          { role: 'user', parts: [{ text: 'x' }] },
          {
            role: 'model',
            parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'f', args: {} } }],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
        ],
      },
      /number of function response parts is equal/,
    );
  });

  it('rejects an OBJECT schema without properties and allowedFunctionNames outside ANY', async () => {
    await expectInvalid(
      body('x', { tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object' } }] }] }),
      /should be non-empty for OBJECT type/,
    );
    await expectInvalid(
      body('x', {
        tools: [{ functionDeclarations: [WEATHER] }],
        toolConfig: { functionCallingConfig: { mode: 'AUTO', allowedFunctionNames: ['get_weather'] } },
      }),
      /allowed_function_names should only be set/,
    );
  });

  it('answers an unknown model with 404 NOT_FOUND', async () => {
    const res = await generate(body('x'), { model: 'gemini-9-ultra' });
    expect(res.status).toBe(404);
    expect((await json(res))['error']).toMatchObject({
      code: 404,
      status: 'NOT_FOUND',
      message: expect.stringMatching(/models\/gemini-9-ultra is not found/),
    });
  });
});

describe('streamGenerateContent', () => {
  it('with alt=sse: data-only events separated by \\r\\n\\r\\n, no [DONE], only new text per event', async () => {
    const res = await streamSse(body('[sim:reply=Paris is sunny today.]'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw = await res.text();
    expect(raw).not.toMatch(/\[DONE\]/);
    expect(raw.endsWith('\r\n\r\n')).toBe(true);
    const frames = raw.split('\r\n\r\n').slice(0, -1);
    expect(frames).toHaveLength(4);
    for (const frame of frames) expect(frame).toMatch(/^data: \{[^\r\n]*\}$/);

    const responses = parse(raw).map((event) => JSON.parse(event.data) as Json);
    expect(responses.map(textOf)).toEqual(['Paris', ' is', ' sunny', ' today.']);
    const last = responses[responses.length - 1]!;
    for (const response of responses.slice(0, -1)) {
      expect(response['candidates'][0].finishReason).toBeUndefined();
      expect(response['usageMetadata']).toEqual({
        promptTokenCount: last['usageMetadata'].promptTokenCount,
        totalTokenCount: last['usageMetadata'].promptTokenCount,
      });
      expect(response['responseId']).toBe(last['responseId']);
    }
    expect(last['candidates'][0].finishReason).toBe('STOP');
    const usage = last['usageMetadata'];
    expect(usage.candidatesTokenCount).toBe(4);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.candidatesTokenCount);
  });

  it('streams the same text as generateContent answers', async () => {
    const whole = textOf(await json(await generate(body('tell me [sim:words=7]'))));
    const streamed = (await sseResponses(await streamSse(body('tell me [sim:words=7]')))).map(textOf).join('');
    expect(streamed).toBe(whole);
  });

  it('delivers function calls whole in one event', async () => {
    const responses = await sseResponses(
      await streamSse(body('[sim:tools=2]', { tools: [{ functionDeclarations: [WEATHER, TIME] }] })),
    );
    expect(responses).toHaveLength(1);
    const parts = responses[0]!['candidates'][0].content.parts;
    expect(parts.map((p: Json) => p['functionCall'])).toEqual([
      { name: 'get_weather', args: { city: 'city-value' }, id: expect.any(String) },
      { name: 'get_time', args: { zone: 'zone-value' }, id: expect.any(String) },
    ]);
    expect(responses[0]!['candidates'][0].finishReason).toBe('STOP');
  });

  it('without alt=sse: one JSON array of the same responses', async () => {
    const res = await post('streamGenerateContent', body('[sim:words=3]'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const array = (await res.json()) as Json[];
    expect(Array.isArray(array)).toBe(true);
    expect(array.map(textOf)).toEqual(['word1', ' word2', ' word3']);
    expect(array[2]!['candidates'][0].finishReason).toBe('STOP');
  });

  it('ends a [sim:stream_error] stream with a bare {"error"} event and no finishReason', async () => {
    const responses = await sseResponses(await streamSse(body('[sim:words=5] [sim:stream_error=503]')));
    expect(responses).toHaveLength(2);
    expect(textOf(responses[0]!)).toBe('word1');
    expect(responses[1]).toEqual({
      error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' },
    });
  });

  it('a per-event fault hits the event it names (through the harness writer)', async () => {
    await fault('malformed_chunk:1');
    const events = parse(await (await streamSse(body('[sim:words=3]'))).text());
    expect(events).toHaveLength(3);
    expect(() => JSON.parse(events[0]!.data)).not.toThrow();
    expect(() => JSON.parse(events[1]!.data)).toThrow();

    await fault('reset_after_chunks:1');
    const res = await streamSse(body('[sim:words=3]'));
    await expect(res.text()).rejects.toThrow();
  });
});

describe('errors', () => {
  it('429 RESOURCE_EXHAUSTED carries QuotaFailure, RetryInfo "2s" and retry-after', async () => {
    await fault('status:429');
    const res = await generate(body('x'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    const { error } = await json(res);
    expect(error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: expect.stringMatching(/retry in 2s/),
    });
    const types = error.details.map((d: Json) => d['@type']);
    expect(types).toEqual(
      expect.arrayContaining([
        'type.googleapis.com/google.rpc.QuotaFailure',
        'type.googleapis.com/google.rpc.RetryInfo',
      ]),
    );
    expect(error.details.find((d: Json) => d['@type'].endsWith('RetryInfo')).retryDelay).toBe('2s');
    expect(error.details.find((d: Json) => d['@type'].endsWith('QuotaFailure')).violations[0].quotaId).toMatch(
      /PerMinute/,
    );
  });

  it.each([
    [500, 'INTERNAL', /internal error/],
    [503, 'UNAVAILABLE', /^The model is overloaded\./],
    [504, 'DEADLINE_EXCEEDED', /Deadline expired/],
    [404, 'NOT_FOUND', /is not found/],
    [403, 'PERMISSION_DENIED', /permission/],
    [401, 'UNAUTHENTICATED', /authentication credentials/],
  ])('status:%i answers {error:{code,message,status}} with %s', async (code, status, message) => {
    await fault(`status:${code}`);
    const res = await streamSse(body('x'));
    expect(res.status).toBe(code);
    const { error } = await json(res);
    expect(error).toMatchObject({ code, status });
    expect(error.message).toMatch(message);
  });

  it('502 is the front end HTML page; the array stream form wraps errors in an array', async () => {
    await fault('status:502');
    const page = await generate(body('x'));
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);

    await fault('status:503');
    const wrapped = await post('streamGenerateContent', body('x'));
    expect(wrapped.status).toBe(503);
    expect(await wrapped.json()).toEqual([{ error: expect.objectContaining({ code: 503, status: 'UNAVAILABLE' }) }]);
  });
});

describe('models and capture', () => {
  it('lists models[] with paging', async () => {
    const res = await fetch(`${sim.url}/v1beta/models?pageSize=2`, { headers: { 'x-goog-api-key': KEY } });
    const first = await json(res);
    expect(first['models']).toHaveLength(2);
    expect(first['models'][0]).toMatchObject({
      name: 'models/gemini-2.5-pro',
      supportedGenerationMethods: expect.arrayContaining(['generateContent']),
    });
    expect(first['nextPageToken']).toEqual(expect.any(String));
    const rest = await json(
      await fetch(`${sim.url}/v1beta/models?pageSize=100&pageToken=${first['nextPageToken']}`, {
        headers: { 'x-goog-api-key': KEY },
      }),
    );
    expect(rest['nextPageToken']).toBeUndefined();
    expect(rest['models'].map((m: Json) => m['name'])).toContain('models/gemini-2.5-flash-lite');
    expect(rest['models'].map((m: Json) => m['name'])).not.toContain(first['models'][1].name);
  });

  it('captures every request with headers, query and body', async () => {
    await post('streamGenerateContent', body('captured'), { query: '?alt=sse' });
    const { requests } = await json(await fetch(`${sim.url}/__sim/requests`));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/${MODEL}:streamGenerateContent`,
      query: { alt: 'sse' },
      headers: expect.objectContaining({ 'x-goog-api-key': KEY }),
      body: body('captured'),
    });
  });
});
