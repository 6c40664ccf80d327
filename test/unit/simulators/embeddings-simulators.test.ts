import { geminiSimulator } from '../../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { openAiSimulator } from '../../../local/simulators/openai.js';
import { openRouterSimulator } from '../../../local/simulators/openrouter.js';

/**
 * The simulators' embedding endpoints over plain HTTP: OpenAI's and OpenRouter's `/embeddings`
 * and Gemini's `batchEmbedContents` / `embedContent` in their wire formats, deterministic vectors,
 * the providers' own refusals, and the shared fault injection.
 */

let openai: RunningSimulator;
let openrouter: RunningSimulator;
let gemini: RunningSimulator;

beforeAll(async () => {
  [openai, openrouter, gemini] = await Promise.all([
    startSimulator(openAiSimulator, 0),
    startSimulator(openRouterSimulator, 0),
    startSimulator(geminiSimulator, 0),
  ]);
});
afterAll(() => Promise.all([openai.close(), openrouter.close(), gemini.close()]));
beforeEach(() => {
  for (const sim of [openai, openrouter, gemini]) sim.faults.clear();
});

const post = async (url: string, body: unknown, headers: Record<string, string>) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};
const openAiEmbed = (body: unknown, base = `${openai.url}/v1`) =>
  post(`${base}/embeddings`, body, { Authorization: 'Bearer sim-key' });
const geminiBatch = (model: string, body: unknown) =>
  post(`${gemini.url}/v1beta/models/${model}:batchEmbedContents`, body, { 'x-goog-api-key': 'AIza-test' });
const norm = (values: number[]) => Math.sqrt(values.reduce((sum, v) => sum + v * v, 0));

describe('OpenAI', () => {
  it('answers the list shape: equal texts equal vectors, others differ, unit length, usage of 4 bytes a token', async () => {
    const answer = await openAiEmbed({ model: 'text-embedding-3-small', input: ['same', 'other', 'same'] });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      object: 'list',
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    const [a, b, c] = answer.body.data.map((d: any) => d.embedding);
    expect(a).toHaveLength(1536);
    expect(c).toEqual(a);
    expect(b).not.toEqual(a);
    expect(norm(a)).toBeCloseTo(1, 6);
  });

  it('writes base64 as the little-endian float32s of the float answer, and shortens renormalised', async () => {
    const floats = await openAiEmbed({ model: 'text-embedding-3-large', input: 'x', dimensions: 8 });
    const base64 = await openAiEmbed({
      model: 'text-embedding-3-large',
      input: 'x',
      dimensions: 8,
      encoding_format: 'base64',
    });
    const bytes = Buffer.from(base64.body.data[0].embedding, 'base64');
    const decoded = Array.from({ length: 8 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(decoded).toEqual(floats.body.data[0].embedding);
    expect(norm(decoded)).toBeCloseTo(1, 6);
  });

  it.each([
    [{ model: 'text-embedding-3-small', input: '' }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'x', dimensions: 1537 }, 'dimensions'],
    [{ model: 'text-embedding-ada-002', input: 'x', dimensions: 10 }, 'dimensions'],
    [{ model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    [{ model: 'text-embedding-3-small', input: 'y'.repeat(8193 * 4) }, 'input'],
  ])('refuses %j naming %s', async (body, param) => {
    const answer = await openAiEmbed(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('answers an unknown model 404 model_not_found, and injected faults apply', async () => {
    expect((await openAiEmbed({ model: 'gpt-5', input: 'x' })).body.error.code).toBe('model_not_found');
    openai.faults.add({
      fault: { type: 'status', status: 429 },
      remaining: 1,
      model: 'text-embedding-3-small',
      text: 'status:429',
    });
    const limited = await openAiEmbed({ model: 'text-embedding-3-small', input: 'x' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    expect((await openAiEmbed({ model: 'text-embedding-3-small', input: 'x' })).status).toBe(200);
  });

  it('OpenRouter serves the routes’ vendor/model ids', async () => {
    const answer = await openAiEmbed({ model: 'google/gemini-embedding-001', input: 'x' }, `${openrouter.url}/api/v1`);
    expect(answer.status).toBe(200);
    expect(answer.body.data[0].embedding).toHaveLength(3072);
  });
});

describe('Gemini', () => {
  const request = (text: string, extra: Record<string, unknown> = {}) => ({
    model: 'models/gemini-embedding-001',
    content: { parts: [{ text }] },
    ...extra,
  });

  it('answers one embedding per request; a shortened vector is the full one’s first values, not renormalised', async () => {
    const full = await geminiBatch('gemini-embedding-001', { requests: [request('a'), request('b'), request('a')] });
    expect(full.status).toBe(200);
    const [a, b, again] = full.body.embeddings.map((e: any) => e.values);
    expect(a).toHaveLength(3072);
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
    expect(full.body.usageMetadata).toBeUndefined();
    const short = await geminiBatch('gemini-embedding-001', {
      requests: [request('a', { outputDimensionality: 256 })],
    });
    expect(short.body.embeddings[0].values).toEqual(a.slice(0, 256));
    expect(norm(short.body.embeddings[0].values)).toBeLessThan(1);
  });

  it.each([
    ['101 requests', { requests: Array(101).fill(request('x')) }],
    ['another model', { requests: [{ ...request('x'), model: 'models/text-embedding-004' }] }],
    ['an empty text', { requests: [request('')] }],
    ['dimensions under 128', { requests: [request('x', { outputDimensionality: 64 })] }],
    ['a text over 2048 tokens', { requests: [request('z'.repeat(2049 * 4))] }],
  ])('refuses %s with 400 INVALID_ARGUMENT', async (_, body) => {
    const answer = await geminiBatch('gemini-embedding-001', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.status).toBe('INVALID_ARGUMENT');
  });

  it('embedContent answers one embedding; an unknown model is 404; faults apply', async () => {
    const one = await post(
      `${gemini.url}/v1beta/models/text-embedding-004:embedContent`,
      { content: { parts: [{ text: 'x' }] } },
      {
        'x-goog-api-key': 'AIza-test',
      },
    );
    expect(one.body.embedding.values).toHaveLength(768);
    expect((await geminiBatch('gemini-2.5-pro', { requests: [request('x')] })).status).toBe(404);
    gemini.faults.add({ fault: { type: 'status', status: 503 }, remaining: 1, text: 'status:503' });
    const failed = await geminiBatch('gemini-embedding-001', { requests: [request('x')] });
    expect(failed.status).toBe(503);
    expect(failed.body.error.status).toBe('UNAVAILABLE');
  });
});
