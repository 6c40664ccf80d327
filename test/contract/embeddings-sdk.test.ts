import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { geminiSimulator } from '../../local/simulators/gemini.js';
import { startSimulator, type RunningSimulator } from '../../local/simulators/harness.js';
import { openAiSimulator } from '../../local/simulators/openai.js';

/**
 * The simulators' embedding endpoints read only by the providers' official SDKs (`openai`'s
 * `embeddings.create`, `@google/genai`'s `models.embedContent`), never by the gateway's own wire
 * code: what the simulators write is what the real APIs' clients parse. The Gemini client gets
 * the sandbox's `fetch` as gemini-sdk.test.ts explains.
 */

let openai: RunningSimulator;
let gemini: RunningSimulator;

beforeAll(async () => {
  [openai, gemini] = await Promise.all([startSimulator(openAiSimulator, 0), startSimulator(geminiSimulator, 0)]);
});
afterAll(() => Promise.all([openai.close(), gemini.close()]));

const client = () => new OpenAI({ apiKey: 'sk-contract', baseURL: `${openai.url}/v1`, maxRetries: 0 });
const norm = (values: readonly number[]) => Math.sqrt(values.reduce((sum, v) => sum + v * v, 0));

describe('openai embeddings.create', () => {
  it('decodes its default base64 to the very floats a float request gets', async () => {
    const decoded = await client().embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    const floats = await client().embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      encoding_format: 'float',
    });
    expect((openai.requests.at(-2)!.body as { encoding_format?: string }).encoding_format).toBe('base64');
    expect(decoded.data.map((d) => d.embedding)).toEqual(floats.data.map((d) => d.embedding));
    expect(decoded.data[0]!.embedding).toHaveLength(1536);
    expect(decoded.data[0]!.embedding).not.toEqual(decoded.data[1]!.embedding);
    expect(decoded.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
  });

  it('shortens with dimensions to unit length', async () => {
    const answer = await client().embeddings.create({ model: 'text-embedding-3-large', input: 'x', dimensions: 64 });
    expect(answer.data[0]!.embedding).toHaveLength(64);
    expect(norm(answer.data[0]!.embedding)).toBeCloseTo(1, 5);
  });

  it('raises its typed errors: a text over the limit, an unknown model', async () => {
    const long = await client()
      .embeddings.create({ model: 'text-embedding-3-small', input: 'x'.repeat(40_000) })
      .catch((e: unknown) => e);
    expect(long).toBeInstanceOf(OpenAI.BadRequestError);
    expect((long as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');
    const unknown = await client()
      .embeddings.create({ model: 'no-such-embedder', input: 'x' })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('@google/genai models.embedContent', () => {
  const ai = () =>
    new GoogleGenAI({
      apiKey: 'AIza-contract',
      httpOptions: { baseUrl: gemini.url, apiVersion: 'v1beta', fetch: (input, init) => fetch(input, init) },
    });

  it('reads one embedding per text, shortened to outputDimensionality', async () => {
    const answer = await ai().models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['first', 'second', 'first'],
      config: { outputDimensionality: 256 },
    });
    const values = answer.embeddings!.map((e) => e.values!);
    expect(values).toHaveLength(3);
    expect(values[0]).toHaveLength(256);
    expect(values[2]).toEqual(values[0]);
    expect(values[1]).not.toEqual(values[0]);
    expect(gemini.requests.at(-1)!.path).toMatch(/:batchEmbedContents$/);
  });
});
