import fc from 'fast-check';
import OpenAI from 'openai';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { useGateway } from './support/gateway-fixture.js';
import { adminKey } from './support/provisioning.js';
import { until } from './support/poll.js';
import { SimulatorControl } from './support/simulators.js';

/**
 * POST /api/v1/embeddings over HTTP against the local runtime and its OpenAI, OpenRouter and
 * Gemini simulators (docs/interface.md §4.12), driven by the official `openai` SDK where a caller
 * would use it.
 */
const local = useGateway({
  account: 'embeddings',
  key: { via: 'dashboard' },
  runtimeTables: true,
  simulator: 'openai',
  resetEach: true,
});

const gemini = () => SimulatorControl.of(local.gateway, 'google');
const openrouter = () => SimulatorControl.of(local.gateway, 'openrouter');
const sdk = () => new OpenAI({ apiKey: local.key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
const embed = (body: unknown, headers: Record<string, string> = {}) =>
  call(local.gateway.url('/api/v1/embeddings'), { headers: { ...bearer(local.key), ...headers }, body });

/** A text of `bytes` ASCII bytes, different for each `seed` (the simulators count a token per 4 bytes). */
const textOf = (seed: string, bytes: number) => `${seed} `.repeat(Math.ceil(bytes / (seed.length + 1))).slice(0, bytes);
const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const decoded = (base64: string) => {
  const bytes = Buffer.from(base64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
};

function expectBadRequest(answer: Answer, field: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error.type).toBe('invalid_request_error');
  expect(answer.body.error.param).toBe(field);
  expect(answer.body.error.message).toContain(field);
}

describe('the openai SDK', () => {
  it('embeddings.create with its default base64: vectors decoded, equal texts equal, different texts differ', async () => {
    const { data: answer, response } = await sdk()
      .embeddings.create({ model: 'text-embedding-3-small', input: ['alpha', 'beta', 'alpha'] })
      .withResponse();
    expect(answer.object).toBe('list');
    expect(answer.model).toBe('text-embedding-3-small');
    expect(answer.data.map((d) => [d.object, d.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
      ['embedding', 2],
    ]);
    const [a, b, again] = answer.data.map((d) => d.embedding);
    expect(a).toHaveLength(1536);
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(answer.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 }); // 2 + 1 + 2 tokens of 4 bytes
    expect(response.headers.get('x-cache')).toBe('MISS');
    expect(response.headers.get('x-model-used')).toBe('text-embedding-3-small');
    const [sent] = await local.simulator.requests();
    expect(sent!.path).toBe('/v1/embeddings');
    expect(sent!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta', 'alpha'],
      encoding_format: 'base64',
    });
  });

  it('asked for floats gets JSON numbers, the same float32 values as base64 gives', async () => {
    const floats = await sdk().embeddings.create({
      model: 'text-embedding-3-large',
      input: 'gamma',
      encoding_format: 'float',
    });
    const base64 = await sdk().embeddings.create({ model: 'text-embedding-3-large', input: 'gamma' });
    expect(floats.data[0]!.embedding).toHaveLength(3072);
    expect(base64.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    const sent = await local.simulator.requests();
    expect(sent.map((r) => r.body.encoding_format)).toEqual(['float', 'base64']);
  });

  it('shortens vectors with `dimensions`, renormalised, and passes `user` on', async () => {
    const answer = await sdk().embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: 'delta',
      dimensions: 256,
      encoding_format: 'float',
      user: 'end-user-7',
    });
    expect(answer.data[0]!.embedding).toHaveLength(256);
    expect(norm(answer.data[0]!.embedding)).toBeCloseTo(1, 5);
    const [sent] = await local.simulator.requests();
    expect(sent!.body).toMatchObject({ model: 'text-embedding-3-small', dimensions: 256, user: 'end-user-7' });
  });

  it('raises BadRequestError naming the field for a refused request', async () => {
    const error = await sdk()
      .embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3]] as unknown as string[] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input[0]');
  });
});

describe('metering and the cache', () => {
  it('meters one ledger entry at the list price, then answers the repeat from the cache for nothing', async () => {
    // Three inputs of 4,000 bytes: 1,000 tokens each at the simulator's four bytes a token.
    const input = [textOf('one', 4000), textOf('two', 4000), textOf('three', 4000)];
    const first = await embed({ model: 'text-embedding-3-small', input });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.body.usage).toEqual({ prompt_tokens: 3000, total_tokens: 3000 });
    const [entry] = await ledgerEntries(local.gateway, local.account.accountId, first.headers.get('x-request-id')!, 1);
    // $0.02 per million tokens: 3,000 tokens cost $0.00006, 60 micro-USD.
    expect(entry).toMatchObject({
      model: 'text-embedding-3-small',
      provider: 'openai',
      promptTokens: 3000,
      completionTokens: 0,
      costMicroUsd: (3000 * 0.02 * 1e6) / 1e6,
      estimated: false,
      cached: false,
      status: 200,
      outcome: 'ok',
    });

    const again = await embed({ model: 'openai/text-embedding-3-small', input });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.body).toEqual(first.body);
    const [hit] = await ledgerEntries(local.gateway, local.account.accountId, again.headers.get('x-request-id')!, 1);
    expect(hit).toMatchObject({ cached: true, outcome: 'cache_hit', costMicroUsd: 0, promptTokens: 3000 });
    expect(await local.simulator.requests()).toHaveLength(1);

    // Another encoding or length is another answer; `X-Cache: no-cache` asks afresh.
    expect(
      (await embed({ model: 'text-embedding-3-small', input, encoding_format: 'base64' })).headers.get('x-cache'),
    ).toBe('MISS');
    expect((await embed({ model: 'text-embedding-3-small', input, dimensions: 64 })).headers.get('x-cache')).toBe(
      'MISS',
    );
    expect(
      (await embed({ model: 'text-embedding-3-small', input }, { 'X-Cache': 'no-cache' })).headers.get('x-cache'),
    ).toBe('MISS');
    expect(await local.simulator.requests()).toHaveLength(4);
  });
});

describe('budgets', () => {
  it('a key budget refuses a request whose greatest cost it cannot hold, before any upstream call, and settles one it can', async () => {
    const created = await call(local.gateway.url('/api/v1/keys'), {
      headers: local.account.session,
      body: { name: 'embed budget', budget: { limitUsd: 0.01, period: 'day' } },
    });
    expect(created.status).toBe(201);
    const { key, keyId } = created.body.data;
    const send = (body: unknown) => call(local.gateway.url('/api/v1/embeddings'), { headers: bearer(key), body });

    // 1,020,000 bytes of text on the large model may cost up to as many tokens at $0.13 per million: $0.1326.
    const refused = await send({
      model: 'text-embedding-3-large',
      input: Array(17).fill(textOf('b', 60_000)),
      encoding_format: 'base64',
    });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('BUDGET_EXCEEDED');
    expect(await local.simulator.requests()).toHaveLength(0);

    // 4,000 bytes reserve $0.00052 and cost 1,000 tokens at $0.13 per million: $0.00013.
    const paid = await send({
      model: 'text-embedding-3-large',
      input: textOf('paid', 4000),
      encoding_format: 'base64',
    });
    expect(paid.status).toBe(200);
    const budget = await until(
      async () => {
        const keys = await call(local.gateway.url('/api/v1/keys'), { headers: { Cookie: local.account.cookie } });
        return keys.body.data.keys.find((k: { id: string }) => k.id === keyId).budget;
      },
      (b) => b.reservedUsd === 0 && b.spentUsd > 0,
    );
    expect(budget).toMatchObject({ spentUsd: 0.00013, reservedUsd: 0 });
  });
});

describe('upstream failures', () => {
  it('retries a transient failure, metering the failed call at 0', async () => {
    await local.simulator.fault('status:503', 1, 'text-embedding-3-small');
    const answer = await embed({ model: 'text-embedding-3-small', input: 'retry me' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-retry-count')).toBe('1');
    const entries = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 2);
    expect(entries.map((e) => [e.status, e.outcome, e.costMicroUsd])).toEqual([
      [503, 'overload', 0],
      [200, 'ok', 0], // 2 tokens at $0.02 per million round to 0 micro-USD
    ]);
  });

  it('fails over to OpenRouter when OpenAI keeps failing', async () => {
    await local.simulator.fault('status:500', 3, 'text-embedding-3-small');
    const answer = await embed({ model: 'text-embedding-3-small', input: 'fail over', encoding_format: 'float' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-fallback-from')).toBe('text-embedding-3-small');
    expect(answer.headers.get('x-model-used')).toBe('openai/text-embedding-3-small');
    expect(answer.body.model).toBe('text-embedding-3-small');
    const sent = (await openrouter().requests()).filter((r) => r.path === '/api/v1/embeddings');
    expect(sent.at(-1)!.body.model).toBe('openai/text-embedding-3-small');
  });

  it('an upstream refusal of the input is a 400 naming input, never retried', async () => {
    const answer = await embed({ model: 'text-embedding-3-small', input: textOf('long', 40_000) });
    expectBadRequest(answer, 'input');
    expect(await local.simulator.requests()).toHaveLength(1);
  });
});

describe('Gemini', () => {
  it('batches 150 texts in calls of 100, unit vectors of the asked length, tokens estimated and flagged', async () => {
    await gemini().reset();
    const input = Array.from({ length: 150 }, (_, i) => `gemini text ${i}`);
    const answer = await embed({ model: 'gemini-embedding-001', input, dimensions: 768, encoding_format: 'float' });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(150);
    expect(answer.body.data.map((d: any) => d.index)).toEqual(input.map((_, i) => i));
    for (const { embedding } of answer.body.data) {
      expect(embedding).toHaveLength(768);
      expect(norm(embedding)).toBeCloseTo(1, 5);
    }
    const sent = await gemini().requests();
    expect(sent.map((r) => [r.path, r.body.requests.length])).toEqual([
      ['/v1beta/models/gemini-embedding-001:batchEmbedContents', 100],
      ['/v1beta/models/gemini-embedding-001:batchEmbedContents', 50],
    ]);
    expect(sent[0]!.body.requests[0]).toEqual({
      model: 'models/gemini-embedding-001',
      content: { parts: [{ text: 'gemini text 0' }] },
      outputDimensionality: 768,
    });
    const entries = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 2);
    expect(entries.map((e) => [e.provider, e.estimated])).toEqual([
      ['google', true],
      ['google', true],
    ]);
    expect(answer.body.usage.prompt_tokens).toBe(entries[0]!.promptTokens + entries[1]!.promptTokens);
  });

  it('base64 from Gemini’s numbers decodes to the float answer', async () => {
    const floats = await embed({ model: 'gemini-embedding-001', input: 'same', encoding_format: 'float' });
    const base64 = await embed({ model: 'gemini-embedding-001', input: 'same', encoding_format: 'base64' });
    expect(decoded(base64.body.data[0].embedding)).toEqual(floats.body.data[0].embedding.map(Math.fround));
  });
});

describe('keys', () => {
  it('a stored OpenAI key replaces the platform key', async () => {
    const own = 'sk-own-openai-key-for-embeddings-4321';
    const created = await call(local.gateway.url('/api/v1/provider-keys'), {
      headers: local.account.session,
      body: { provider: 'openai', slug: 'embed-own', apiKey: own },
    });
    expect(created.status).toBe(201);
    try {
      const answer = await embed({ model: 'text-embedding-3-small', input: 'whose key?' });
      expect(answer.status).toBe(200);
      const [sent] = await local.simulator.requests();
      expect(sent!.headers['authorization']).toBe(`Bearer ${own}`);
    } finally {
      await call(local.gateway.url(`/api/v1/provider-keys/${created.body.data.id}`), {
        method: 'DELETE',
        headers: local.account.session,
      });
    }
  });

  it('a publishable key is refused from its own origin: embeddings take secret keys only', async () => {
    const origin = 'https://shop.example';
    const { key } = await adminKey(local.gateway, {
      accountId: local.account.accountId,
      type: 'publishable',
      allowedOrigins: [origin],
    });
    const answer = await call(local.gateway.url('/api/v1/embeddings'), {
      headers: { ...bearer(key), Origin: origin },
      body: { model: 'text-embedding-3-small', input: 'x' },
    });
    expect(answer.status).toBe(403);
    expect(await local.simulator.requests()).toHaveLength(0);
  });
});

describe('bad input is a 400 naming the field, and nothing reaches an upstream', () => {
  const cases: [string, unknown, string][] = [
    ['no model', { input: 'x' }, 'model'],
    ['a chat model', { model: 'gpt-5', input: 'x' }, 'model'],
    ['no input', { model: 'text-embedding-3-small' }, 'input'],
    ['an empty text', { model: 'text-embedding-3-small', input: '' }, 'input'],
    ['an empty list', { model: 'text-embedding-3-small', input: [] }, 'input'],
    ['an empty text in a list', { model: 'text-embedding-3-small', input: ['a', ''] }, 'input[1]'],
    ['a token array', { model: 'text-embedding-3-small', input: [1, 2, 3] }, 'input[0]'],
    ['2,049 texts', { model: 'text-embedding-3-small', input: Array(2049).fill('x') }, 'input'],
    ['a text over the model’s tokens', { model: 'gemini-embedding-001', input: textOf('x', 20_000) }, 'input'],
    [
      'more than 1 MiB of text',
      { model: 'text-embedding-3-small', input: Array(20).fill(textOf('y', 60_000)) },
      'input',
    ],
    ['dimensions over the model’s', { model: 'text-embedding-3-small', input: 'x', dimensions: 2000 }, 'dimensions'],
    ['dimensions under Gemini’s', { model: 'gemini-embedding-001', input: 'x', dimensions: 64 }, 'dimensions'],
    ['a fractional dimensions', { model: 'text-embedding-3-small', input: 'x', dimensions: 1.5 }, 'dimensions'],
    [
      'an unknown encoding',
      { model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' },
      'encoding_format',
    ],
    ['an unknown field', { model: 'text-embedding-3-small', input: 'x', dimension: 3 }, 'dimension'],
    ['an answer over 5 MB as floats', { model: 'text-embedding-3-large', input: Array(100).fill('z') }, 'input'],
  ];
  it.each(cases)('%s', async (_, body, field) => {
    expectBadRequest(await embed(body), field);
    expect(await local.simulator.requests()).toHaveLength(0);
  });
});

it('no body yields a 5xx, and every 400 names its field as param and in the message', async () => {
  const anyValue = fc.oneof(fc.jsonValue(), fc.constantFrom(0, -1, 1e308, '', ' ', null, true, [], {}));
  const text = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
  const body = fc.oneof(
    fc
      .record(
        {
          model: fc.oneof(
            fc.constantFrom('text-embedding-3-small', 'gemini-embedding-001', 'models/gpt', 'gpt'),
            anyValue,
          ),
          input: fc.oneof(text, fc.array(text, { maxLength: 4 }), fc.array(fc.integer(), { maxLength: 4 }), anyValue),
          encoding_format: fc.oneof(fc.constantFrom('float', 'base64'), anyValue),
          dimensions: fc.oneof(fc.integer({ min: -5, max: 4000 }), anyValue),
          user: anyValue,
          unexpected: anyValue,
        },
        { requiredKeys: [] },
      )
      .map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
  );
  await fc.assert(
    fc.asyncProperty(body, async (raw) => {
      const answer = await call(local.gateway.url('/api/v1/embeddings'), {
        headers: { ...bearer(local.key), 'Content-Type': 'application/json' },
        rawBody: raw,
      });
      expect(answer.status).toBeLessThan(500);
      if (answer.status === 400) {
        expect(typeof answer.body.error.param).toBe('string');
        expect(answer.body.error.message).toContain(answer.body.error.param);
      } else {
        expect(answer.status).toBe(200);
      }
    }),
    { numRuns: 80 },
  );
}, 60_000);
