import { crc32, deflateSync } from 'node:zlib';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * POST /api/v1/images/analyze (docs/interface.md §4.11) over HTTP against the local runtime: the
 * vision simulators write the description, the ledger meters it, the account's description
 * cache answers a repeat, bad input is a 400 naming its field before any upstream hears of it,
 * and upstream faults end in the chat error table's answers.
 */
const local = useGateway({
  account: 'image-analysis',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const analyze = (body: unknown, headers: Record<string, string> = {}) =>
  call(local.gateway.url('/api/v1/images/analyze'), { headers: { ...bearer(local.key), ...headers }, body });

const simulator = (provider: string) => SimulatorControl.of(local.gateway, provider);
const entriesOf = (answer: Answer, expected: number) =>
  ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, expected);

/** A real 1×1 PNG of one colour, as a data URI: each colour is another image to the cache. */
function pngDataUri(red: number, green: number, blue: number): string {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]); // 1×1, 8-bit RGB
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, red, green, blue]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

const DESCRIBE = 'Describe this image for someone who cannot see it';

describe('answers', () => {
  test('a data URI: described by the describer family, metered, then served from the cache for free', async () => {
    const openai = simulator('openai');
    await openai.reset();
    const image = pngDataUri(200, 30, 30);

    const first = await analyze({ image });
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    const data = first.body.data;
    expect(data.description).toMatch(new RegExp(`^Simulated reply from gpt-5 — you said: ${DESCRIBE}`));
    expect(data.description).toMatch(/\(I see 1 image\)$/);
    expect(data.model).toBe('gpt-5');
    expect(data.cached).toBe(false);
    expect(data.usage.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage.completion_tokens).toBeGreaterThan(0);
    expect(data.usage.total_tokens).toBe(data.usage.prompt_tokens + data.usage.completion_tokens);
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.headers.get('x-model-used')).toBe('gpt-5');
    expect(first.headers.get('x-ratelimit-limit')).toBe('10000');
    const sent = await openai.requests();
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]!.body)).toContain(image);
    const [metered, ...more] = await entriesOf(first, 1);
    expect(more).toHaveLength(0);
    expect(metered).toMatchObject({
      route: 'images-analyze',
      model: 'gpt-5',
      provider: 'openai',
      promptTokens: data.usage.prompt_tokens,
      completionTokens: data.usage.completion_tokens,
      cached: false,
      outcome: 'ok',
    });
    expect(metered!.costMicroUsd).toBeGreaterThan(0);

    const second = await analyze({ image });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual({ ...data, cached: true });
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await openai.requests()).toHaveLength(1); // nothing went upstream
    const [hit, ...others] = await entriesOf(second, 1);
    expect(others).toHaveLength(0);
    expect(hit).toMatchObject({ route: 'images-analyze', model: 'gpt-5', cached: true, outcome: 'cache_hit' });
    expect(hit!.costMicroUsd).toBe(0);

    const fresh = await analyze({ image }, { 'X-Cache': 'no-cache' });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-cache')).toBe('MISS');
    expect(await openai.requests()).toHaveLength(2);
  });

  test('an image URL with a question and a chosen model: the provider gets the URL and the question', async () => {
    const anthropic = simulator('anthropic');
    await anthropic.reset();
    // Offline the name does not resolve, which the policy accepts; the simulator never fetches it.
    const url = 'https://images.example.com/analysis/cat.png';
    const answer = await analyze({ image_url: url, prompt: 'What colour is the cat?', model: 'sonnet' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      description: 'Simulated reply from claude-sonnet-4-5 — you said: What colour is the cat? (I see 1 image)',
      model: 'claude-sonnet-4-5',
      cached: false,
    });
    const [request] = await anthropic.requests();
    expect(JSON.stringify(request!.body)).toContain(url);
    expect(JSON.stringify(request!.body)).toContain('What colour is the cat?');
    expect(await entriesOf(answer, 1)).toMatchObject([{ provider: 'anthropic', outcome: 'ok' }]);

    // Another question about the same image is another analysis, not the cached one.
    const other = await analyze({ image_url: url, prompt: 'Is it asleep?', model: 'claude' });
    expect(other.body.data.description).toContain('you said: Is it asleep?');
    expect(other.headers.get('x-cache')).toBe('MISS');
  });

  test("the describer's own question shares its descriptions with chat's image descriptions", async () => {
    const openai = simulator('openai');
    await openai.reset();
    const image = pngDataUri(30, 30, 200);
    const analysed = await analyze({ image });
    expect(analysed.status).toBe(200);
    expect(await openai.requests()).toHaveLength(1);

    const chat = await call(local.gateway.url('/api/v1/chat/completions'), {
      headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
      body: {
        model: 'deepseek',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: image } },
            ],
          },
        ],
      },
    });
    expect(chat.status).toBe(200);
    expect(await openai.requests()).toHaveLength(1); // the description came from the analysis
    const [upstream] = (await simulator('openrouter').requests()).slice(-1);
    expect(JSON.stringify(upstream!.body.messages)).toContain(`[Image description: ${analysed.body.data.description}]`);
  });
});

describe('bad input is a 400 naming the field; no upstream hears of it', () => {
  async function upstreamRequests(): Promise<number> {
    const counts = await Promise.all(
      ['openai', 'anthropic', 'google', 'xai', 'openrouter'].map(
        async (name) => (await simulator(name).requests()).length,
      ),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  const image = pngDataUri(1, 2, 3);
  const textAsPng = `data:image/png;base64,${Buffer.from('plain text, not a PNG file at all').toString('base64')}`;
  test.each<[string, unknown, string, RegExp]>([
    ['no image', { prompt: 'What is it?' }, 'image_url', /^image_url: required/],
    ['both images', { image, image_url: 'https://images.example.com/a.png' }, 'image', /not both/],
    ['a URL of the metadata service', { image_url: 'http://169.254.169.254/latest/' }, 'image_url', /must be a public/],
    ['a loopback URL', { image_url: 'http://127.0.0.1:8787/a.png' }, 'image_url', /must be a public/],
    ['a data URI as image_url', { image_url: image }, 'image_url', /goes in image/],
    ['a URL as image', { image: 'https://images.example.com/a.png' }, 'image', /must be a data:image/],
    ['a type no provider reads', { image: 'data:image/bmp;base64,Qk0eAAAAAAAAABoAAAAMAAAA' }, 'image', /png\|jpeg/],
    ['base64 that is not', { image: 'data:image/png;base64,%%%%' }, 'image', /must be a data:image/],
    ['bytes of another type', { image: textAsPng }, 'image', /not a png image/],
    [
      'a data URI over 4 MiB',
      { image: `data:image/png;base64,${'A'.repeat(4 * 1024 * 1024)}` },
      'image',
      /at most 4194304 characters/,
    ],
    ['a model without vision', { image, model: 'deepseek' }, 'model', /gpt, claude, gemini, grok, mistral, llama/],
    ['an unknown model', { image, model: 'gpt-0' }, 'model', /unknown model "gpt-0"/],
    ['a blank prompt', { image, prompt: '   ' }, 'prompt', /not empty or blank/],
    ['a prompt over 2000 characters', { image, prompt: '🤖'.repeat(2001) }, 'prompt', /at most 2000 characters/],
    ['a field of another name', { imageUrl: 'https://images.example.com/a.png' }, 'imageUrl', /not a known field/],
    ['a number for a URL', { image_url: 42 }, 'image_url', /string/],
  ])('%s', async (_, body, field, message) => {
    const before = await upstreamRequests();
    const answer = await analyze(body);
    expect([answer.status, answer.body.success, answer.body.error.code, answer.body.error.field]).toEqual([
      400,
      false,
      'BAD_REQUEST',
      field,
    ]);
    expect(answer.body.error.message).toMatch(new RegExp(`^${field}: `));
    expect(answer.body.error.message).toMatch(message);
    expect(await upstreamRequests()).toBe(before);
  });

  test('a prompt of exactly 2000 characters is taken', async () => {
    const answer = await analyze({ image, prompt: '🤖'.repeat(2000) });
    expect(answer.status).toBe(200);
  });
});

describe('upstream faults end in the chat error table', () => {
  const openai = simulator.bind(null, 'openai');
  const openrouter = simulator.bind(null, 'openrouter');
  beforeEach(async () => {
    await openai().reset();
    await openrouter().reset();
  });

  test('every route of the chosen family failing is a 503, each attempt metered', async () => {
    // The family `gpt`: OpenAI, then OpenRouter; one retry each.
    await openai().fault('status:503', 2, 'gpt-5');
    await openrouter().fault('status:503', 2, 'openai/gpt-5');
    const answer = await analyze({ image: pngDataUri(9, 9, 9), prompt: 'fault: everywhere', model: 'gpt' });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    const entries = await entriesOf(answer, 4);
    expect(entries.map((e) => [e.model, e.outcome])).toEqual([
      ['gpt-5', 'overload'],
      ['gpt-5', 'overload'],
      ['openai/gpt-5', 'overload'],
      ['openai/gpt-5', 'overload'],
    ]);
  });

  test('a failing first route fails over to the next, which answers', async () => {
    await openai().fault('status:500', 2, 'gpt-5');
    const answer = await analyze({ image: pngDataUri(8, 8, 8), prompt: 'fault: first route', model: 'gpt' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.model).toBe('openai/gpt-5');
    expect(answer.headers.get('x-model-used')).toBe('openai/gpt-5');
  });

  test("the provider refusing the image is a 400 naming the image's field; nothing is cached", async () => {
    await openai().fault('status:400', 1, 'gpt-5');
    const body = { image: pngDataUri(7, 7, 7), prompt: 'fault: refused', model: 'gpt' };
    const answer = await analyze(body);
    expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([400, 'BAD_REQUEST', 'image']);
    expect(answer.body.error.message).toMatch(/^image: the image could not be read/);
    expect(await openrouter().requests()).toHaveLength(0); // the caller's fault goes nowhere else

    const again = await analyze(body);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-cache')).toBe('MISS');
  });

  test('a provider rate limiting everywhere is a 429 with Retry-After', async () => {
    await openai().fault('status:429', 2, 'gpt-5');
    await openrouter().fault('status:429', 2, 'openai/gpt-5');
    const answer = await analyze({ image: pngDataUri(6, 6, 6), prompt: 'fault: rate limited', model: 'gpt' });
    expect(answer.status).toBe(429);
    expect(answer.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
