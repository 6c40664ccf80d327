import {
  ApiError,
  FunctionCallingConfigMode,
  GoogleGenAI,
  Type,
  createPartFromBase64,
  createPartFromFunctionResponse,
  createPartFromText,
  type Content,
  type FunctionDeclaration,
  type GenerateContentParameters,
  type GenerateContentResponse,
} from '@google/genai';
import { geminiSimulator } from '../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator } from '../../local/simulators/harness.js';

/**
 * The Gemini simulator read only by the official `@google/genai` SDK, never by the product's
 * own SSE parser or adapter: a misreading of the generateContent wire format shared by the
 * simulator and the adapter (which is tested against it) would pass everywhere else, but the
 * SDK reads the API the way Google does. The SDK is pointed at the simulator with
 * `httpOptions.baseUrl`, on API version `v1beta` (the product's; SDK 3.x defaults to `v1`).
 * The SDK retries nothing unless asked, so an injected error surfaces on the first answer.
 *
 * The SDK's own transport reaches for Node's undici global dispatcher on `globalThis`, which
 * jest's module sandbox does not carry ("Undici globalDispatcher is not available"), so the
 * client is handed the sandbox's `fetch` (`httpOptions.fetch`, the SDK's documented hook):
 * the same fetch, without the dispatcher swap. Everything above the transport is the SDK's.
 */

const MODEL = 'gemini-2.5-flash';
const SYSTEM = 'You are terse. Answer in one line.';
const WEATHER: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};
/** A 1×1 transparent PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** Tokens the simulated model counts per image (local/simulators/script.ts). */
const IMAGE_TOKENS = 85;

let sim: RunningSimulator;
let ai: GoogleGenAI;

function clientFor(apiKey: string): GoogleGenAI {
  return new GoogleGenAI({
    apiKey,
    httpOptions: { baseUrl: sim.url, apiVersion: 'v1beta', fetch: (input, init) => fetch(input, init) },
  });
}

beforeAll(async () => {
  sim = await startSimulator(geminiSimulator, 0);
  ai = clientFor('contract-key');
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

/** Every chunk of a generateContentStream, read through the SDK. */
async function chunksOf(params: GenerateContentParameters): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);
  return chunks;
}

/** The answer text of a response, read part by part (the SDK's `text` getter warns on non-text parts). */
function textOf(response: GenerateContentResponse): string {
  return (response.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? '').join('');
}

/** The Google error envelope an ApiError carries as its message (the SDK serialises the body there). */
function envelopeOf(error: ApiError): {
  error: { code: number; status: string; message: string; details?: unknown[] };
} {
  return JSON.parse(error.message) as { error: { code: number; status: string; message: string; details?: unknown[] } };
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(ApiError);
  return caught as ApiError;
}

describe('generateContent, not streamed', () => {
  it('answers with the text, finish reason and usage the SDK types; the system instruction counts', async () => {
    const question = 'What is the capital of France?';
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: question,
      config: { systemInstruction: SYSTEM },
    });
    expect(response.text).toBe(`Simulated reply from ${MODEL} — you said: ${question}`);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.modelVersion).toBe(MODEL);
    expect(response.responseId).toEqual(expect.any(String));
    const usage = response.usageMetadata!;
    expect(usage.candidatesTokenCount).toBe(response.text!.split(' ').length);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount!);
    expect(usage.promptTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: usage.promptTokenCount }]);

    const plain = await ai.models.generateContent({ model: MODEL, contents: question });
    // The system instruction is one more message in the count: 3 framing tokens + ⌈34 / 4⌉.
    expect(usage.promptTokenCount! - plain.usageMetadata!.promptTokenCount!).toBe(3 + Math.ceil(SYSTEM.length / 4));

    const request = sim.requests[0]!;
    expect(request.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(request.headers['x-goog-api-key']).toBe('contract-key');
  });

  it('reports cached content inside the prompt count and thoughts outside the candidates, streamed or not', async () => {
    const params = { model: MODEL, contents: '[sim:words=4][sim:cache_read=5][sim:reasoning=7] Hello.' };
    const usage = (await ai.models.generateContent(params)).usageMetadata!;
    expect(usage).toMatchObject({ candidatesTokenCount: 4, cachedContentTokenCount: 5, thoughtsTokenCount: 7 });
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + 4 + 7);
    expect(usage.cacheTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: 5 }]);
    let last;
    for await (const chunk of await ai.models.generateContentStream(params)) last = chunk.usageMetadata;
    expect(last).toEqual(usage);
  });

  it('counts the prompt with countTokens the same as generateContent reports it', async () => {
    // (The SDK sends no systemInstruction to countTokens on the Developer API: contents only.)
    const params = { model: MODEL, contents: 'Name three primes.' };
    const response = await ai.models.generateContent(params);
    const counted = await ai.models.countTokens(params);
    expect(counted.totalTokens).toBe(response.usageMetadata!.promptTokenCount);
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(sim.requests[1]!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Name three primes.' }] }] });
  });

  it('stops at maxOutputTokens with MAX_TOKENS and the text so far', async () => {
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: '[sim:words=10] go',
      config: { maxOutputTokens: 3 },
    });
    expect(response.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(response.text).toBe('word1 word2 word3');
    expect(response.usageMetadata?.candidatesTokenCount).toBe(3);
  });

  it('ends a withheld answer with SAFETY, no content and the rating that blocked it', async () => {
    const response = await ai.models.generateContent({ model: MODEL, contents: '[sim:finish=SAFETY] hi' });
    const candidate = response.candidates?.[0];
    expect(candidate?.finishReason).toBe('SAFETY');
    expect(candidate?.content).toBeUndefined();
    expect(candidate?.safetyRatings).toContainEqual(expect.objectContaining({ blocked: true, probability: 'HIGH' }));
    expect(response.text).toBeUndefined();
  });

  it('reports a blocked prompt as promptFeedback with no candidates', async () => {
    const response = await ai.models.generateContent({ model: MODEL, contents: '[sim:block=SAFETY] hi' });
    expect(response.candidates).toBeUndefined();
    expect(response.promptFeedback?.blockReason).toBe('SAFETY');
    expect(response.text).toBeUndefined();
  });
});

describe('generateContentStream', () => {
  const params = { model: MODEL, contents: 'Tell me about rivers.', config: { systemInstruction: SYSTEM } };

  it('streams the same answer as the plain call: the deltas concatenate to its text, the last usage is its usage', async () => {
    const whole = await ai.models.generateContent(params);
    const chunks = await chunksOf(params);

    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map(textOf).join('')).toBe(whole.text);
    const last = chunks[chunks.length - 1]!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    // Only the last chunk finishes; the others carry partial usage (prompt only).
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0]?.finishReason === undefined)).toBe(true);
    const prompt = whole.usageMetadata!.promptTokenCount;
    for (const chunk of chunks.slice(0, -1))
      expect(chunk.usageMetadata).toEqual({ promptTokenCount: prompt, totalTokenCount: prompt });
    expect(last.usageMetadata).toEqual(whole.usageMetadata);
    expect(new Set(chunks.map((chunk) => chunk.responseId)).size).toBe(1);

    const request = sim.requests[1]!;
    expect(request.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
    expect(request.query).toMatchObject({ alt: 'sse' });
  });

  it('reads the stream the same when every write reaches it in 5-byte pieces', async () => {
    const multibyte = { model: MODEL, contents: 'Ünïcödé crosses piece boundaries — ✓' };
    const whole = await ai.models.generateContent(multibyte);
    await injectFault('fragment_bytes:5');
    const chunks = await chunksOf(multibyte);
    expect(chunks.map(textOf).join('')).toBe(whole.text);
    expect(chunks[chunks.length - 1]!.usageMetadata).toEqual(whole.usageMetadata);
  });

  it('reads the stream the same when events are separated by \\n\\n instead of \\r\\n\\r\\n', async () => {
    const crlf = await chunksOf(params);
    // A per-event fault that changes nothing sends the stream through the harness's `\n\n` writer.
    await injectFault('delay_first_token:0');
    const lf = await chunksOf(params);
    expect(lf.map(textOf)).toEqual(crlf.map(textOf));
    expect(lf[lf.length - 1]!.usageMetadata).toEqual(crlf[crlf.length - 1]!.usageMetadata);
  });
});

describe('tools', () => {
  it('calls a function and answers its response: a round trip the SDK types end to end', async () => {
    const question = createPartFromText('[sim:tool] What is the weather in Paris?');
    const user: Content = { role: 'user', parts: [question] };
    const first = await ai.models.generateContent({
      model: MODEL,
      contents: [user],
      config: { tools: [{ functionDeclarations: [WEATHER] }] },
    });
    expect(first.candidates?.[0]?.finishReason).toBe('STOP');
    const calls = first.functionCalls ?? [];
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'get_weather', args: { city: 'city-value' } });
    expect(calls[0]!.id).toEqual(expect.any(String));
    // Thinking models sign their first call; the signature goes back in the history.
    expect(first.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));

    const second = await ai.models.generateContent({
      model: MODEL,
      contents: [
        user,
        first.candidates![0]!.content!,
        {
          role: 'user',
          parts: [createPartFromFunctionResponse(calls[0]!.id!, 'get_weather', { content: 'Sunny, 21 °C' })],
        },
      ],
      config: { tools: [{ functionDeclarations: [WEATHER] }] },
    });
    expect(second.functionCalls).toBeUndefined();
    expect(second.text).toBe('The get_weather tool returned: Sunny, 21 °C');
    expect(second.usageMetadata!.promptTokenCount!).toBeGreaterThan(first.usageMetadata!.promptTokenCount!);
  });

  it('reads function calls without ids, as older models answer them', async () => {
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: '[sim:tool] [sim:no_call_ids] Weather?',
      config: { tools: [{ functionDeclarations: [WEATHER] }] },
    });
    expect(response.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'city-value' } }]);
  });

  it('honours functionCallingConfig: ANY calls without a directive, NONE forbids a call', async () => {
    const clock: FunctionDeclaration = { name: 'get_time', description: 'The time' };
    const forced = await ai.models.generateContent({
      model: MODEL,
      contents: 'Anything.',
      config: {
        tools: [{ functionDeclarations: [WEATHER, clock] }],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_time'] },
        },
      },
    });
    expect(forced.functionCalls?.map((call) => [call.name, call.args])).toEqual([['get_time', {}]]);
    const refused = await ai.models.generateContent({
      model: MODEL,
      contents: '[sim:tool] Anything.',
      config: {
        tools: [{ functionDeclarations: [WEATHER] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } },
      },
    });
    expect(refused.functionCalls).toBeUndefined();
    expect(refused.text).toBe(`Simulated reply from ${MODEL} — you said: Anything.`);
  });

  it('streams function calls whole, in one chunk, the same as the plain answer', async () => {
    const params = {
      model: MODEL,
      contents: '[sim:tools=2] Weather and forecast for Paris?',
      config: { tools: [{ functionDeclarations: [WEATHER, { ...WEATHER, name: 'get_forecast' }] }] },
    };
    const whole = await ai.models.generateContent(params);
    const chunks = await chunksOf(params);
    const withCalls = chunks.filter((chunk) => (chunk.functionCalls ?? []).length > 0);
    expect(withCalls).toHaveLength(1);
    expect(withCalls[0]!.functionCalls).toEqual(whole.functionCalls);
    expect(whole.functionCalls?.map((call) => call.name)).toEqual(['get_weather', 'get_forecast']);
    expect(chunks[chunks.length - 1]!.usageMetadata).toEqual(whole.usageMetadata);
  });
});

describe('images', () => {
  it('reads an inlineData image: the answer sees it and the prompt count includes it', async () => {
    const text = 'What is in this picture?';
    const withImage = await ai.models.generateContent({
      model: MODEL,
      contents: [{ role: 'user', parts: [createPartFromBase64(PNG_BASE64, 'image/png'), createPartFromText(text)] }],
    });
    expect(withImage.text).toBe(`Simulated reply from ${MODEL} — you said: ${text} (I see 1 image)`);
    const plain = await ai.models.generateContent({ model: MODEL, contents: text });
    expect(withImage.usageMetadata!.promptTokenCount! - plain.usageMetadata!.promptTokenCount!).toBe(IMAGE_TOKENS);
    const sent = sim.requests[0]!.body as { contents: { parts: Record<string, unknown>[] }[] };
    expect(sent.contents[0]!.parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: PNG_BASE64 } });
  });
});

describe('errors', () => {
  it.each([
    ['status:429', 429, 'RESOURCE_EXHAUSTED'],
    ['status:503', 503, 'UNAVAILABLE'],
    ['status:500', 500, 'INTERNAL'],
    ['status:504', 504, 'DEADLINE_EXCEEDED'],
  ] as const)('an injected %s is an ApiError with status %i and the %s envelope', async (fault, status, rpc) => {
    await injectFault(fault);
    const error = await failure(ai.models.generateContent({ model: MODEL, contents: 'Hi.' }));
    expect(error.status).toBe(status);
    expect(envelopeOf(error).error).toMatchObject({ code: status, status: rpc });
    expect(sim.requests).toHaveLength(1);
  });

  it('a 502 from the front end (an HTML page) is an ApiError carrying the page', async () => {
    await injectFault('status:502');
    const error = await failure(ai.models.generateContent({ model: MODEL, contents: 'Hi.' }));
    expect(error.status).toBe(502);
    expect(envelopeOf(error).error).toMatchObject({ code: 502, message: expect.stringContaining('<html') });
  });

  it('a 429 names its retry delay in RetryInfo, where the SDK leaves it for the caller', async () => {
    await injectFault('status:429');
    const error = await failure(ai.models.generateContent({ model: MODEL, contents: 'Hi.' }));
    expect(envelopeOf(error).error.details).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '2s',
    });
  });

  it('an injected error on a stream request fails before any chunk', async () => {
    await injectFault('status:503');
    const error = await failure(chunksOf({ model: MODEL, contents: 'Hi.' }));
    expect(error.status).toBe(503);
  });

  it('a bad key is a 400 INVALID_ARGUMENT with reason API_KEY_INVALID', async () => {
    const bad = clientFor('bad-key');
    const error = await failure(bad.models.generateContent({ model: MODEL, contents: 'Hi.' }));
    expect(error.status).toBe(400);
    expect(envelopeOf(error).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      details: expect.arrayContaining([expect.objectContaining({ reason: 'API_KEY_INVALID' })]),
    });
  });

  it('an unknown model is a 404 NOT_FOUND', async () => {
    const error = await failure(ai.models.generateContent({ model: 'gemini-0-nonexistent', contents: 'Hi.' }));
    expect(error.status).toBe(404);
    expect(envelopeOf(error).error.status).toBe('NOT_FOUND');
  });

  it('an error chunk after the 200 is thrown by the SDK as an ApiError, after the first text', async () => {
    const stream = await ai.models.generateContentStream({
      model: MODEL,
      contents: '[sim:stream_error=503] Tell me a story.',
    });
    const texts: string[] = [];
    const error = await failure(
      (async () => {
        for await (const chunk of stream) texts.push(textOf(chunk));
      })(),
    );
    expect(error.status).toBe(503);
    expect(texts).toEqual(['Simulated']);
  });
});

describe('models', () => {
  it('pages through the model list with the SDK pager', async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list({ config: { pageSize: 2 } })) names.push(model.name ?? '');
    expect(names).toContain(`models/${MODEL}`);
    expect(new Set(names).size).toBe(names.length);
    const pages = sim.requests.filter((request) => request.path === '/v1beta/models').length;
    expect(pages).toBe(Math.ceil(names.length / 2));
    expect(pages).toBeGreaterThan(1);
  });
});
