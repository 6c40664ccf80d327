import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { useGateway } from './support/gateway-fixture.js';
import { call } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { SimulatorControl } from './support/simulators.js';

/**
 * Amazon Bedrock as a chat provider, end to end: the official OpenAI SDK against the gateway,
 * the gateway against the Bedrock simulator (Converse JSON, ConverseStream's binary frames,
 * SigV4 checked with the runtime's own credentials), faults through the simulator's control
 * API, and the ledger entry's cost worked out here by hand from Bedrock's list prices.
 */
const local = useGateway({
  account: 'bedrock-provider',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'bedrock',
  resetEach: true,
});
let client: OpenAI;
const NOVA = 'amazon.nova-pro-v1:0';
const CLAUDE_ON_BEDROCK = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NO_CACHE = { headers: { 'X-Cache': 'no-cache' } };

beforeAll(() => {
  client = new OpenAI({ apiKey: local.key, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
});

test('nova, whole: the answer, a signed Converse call, and the ledger priced by hand', async () => {
  const { data, response } = await client.chat.completions
    .create(
      { model: 'nova', messages: [{ role: 'user', content: '[sim:reply=Hello from Nova] [sim:cache_read=4]' }] },
      NO_CACHE,
    )
    .withResponse();
  expect(data.choices[0]!.message.content).toBe('Hello from Nova');
  expect(response.headers.get('x-model-used')).toBe(NOVA);
  const [request] = await local.simulator.requests();
  expect(request!.path).toBe('/model/amazon.nova-pro-v1%3A0/converse');
  expect(request!.headers['authorization']).toMatch(
    /^AWS4-HMAC-SHA256 Credential=\S+\/us-east-1\/bedrock\/aws4_request, /,
  );
  expect(request!.body).toMatchObject({ messages: [{ role: 'user', content: [{ text: expect.any(String) }] }] });

  const usage = data.usage!;
  expect(usage.prompt_tokens_details?.cached_tokens).toBe(4);
  const [entry] = await ledgerEntries(local.gateway, local.account.accountId, response.headers.get('x-request-id')!, 1);
  // Nova Pro: $0.80 per million uncached input, $0.20 cached, $3.20 output.
  const perMillion = (usage.prompt_tokens - 4) * 0.8e6 + 4 * 0.2e6 + usage.completion_tokens * 3.2e6;
  expect(entry).toMatchObject({
    provider: 'bedrock',
    model: NOVA,
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    costMicroUsd: Math.floor((perMillion + 500_000) / 1_000_000),
  });
});

test('nova, streamed with a tool call, the binary stream cut into 5-byte pieces', async () => {
  await local.simulator.fault('fragment_bytes:5');
  const stream = await client.chat.completions.create(
    {
      model: 'nova',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Weather in Oslo? [sim:tool]' }],
      tools: [
        {
          type: 'function',
          function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
    },
    NO_CACHE,
  );
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  expect(calls[0]).toMatchObject({ index: 0, function: { name: 'weather' } });
  expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual(expect.any(Object));
  expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
  expect(chunks.at(-1)!.usage!.completion_tokens).toBeGreaterThan(0);
  const [request] = await local.simulator.requests();
  expect(request!.path).toBe('/model/amazon.nova-pro-v1%3A0/converse-stream');
});

test('a throttled Bedrock is retried; a refused one falls back to the family’s other routes', async () => {
  await local.simulator.fault('status:429');
  const retried = await client.chat.completions
    .create({ model: 'nova', messages: [{ role: 'user', content: '[sim:reply=after a retry]' }] }, NO_CACHE)
    .withResponse();
  expect(retried.data.choices[0]!.message.content).toBe('after a retry');
  expect(retried.response.headers.get('x-retry-count')).toBe('1');

  // Model access not enabled in the account: AccessDeniedException, an `auth` failure, so the
  // pinned Bedrock route gives way to Claude's own provider.
  await local.simulator.fault('status:403');
  const anthropic = SimulatorControl.of(local.gateway, 'anthropic');
  await anthropic.reset();
  const fellBack = await client.chat.completions
    .create({ model: CLAUDE_ON_BEDROCK, messages: [{ role: 'user', content: '[sim:reply=from Anthropic]' }] }, NO_CACHE)
    .withResponse();
  expect(fellBack.data.choices[0]!.message.content).toBe('from Anthropic');
  expect(fellBack.response.headers.get('x-model-used')).toBe('claude-sonnet-4-5');
  expect(fellBack.response.headers.get('x-fallback-from')).toBe(CLAUDE_ON_BEDROCK);
  expect(await anthropic.requests()).toHaveLength(1);
});

test('a linked image is a 400 naming the part; a stored key for bedrock is a 400 naming provider', async () => {
  const image = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { Authorization: `Bearer ${local.key}` },
    body: {
      model: 'nova',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
    },
  });
  expect(image.status).toBe(400);
  expect(JSON.stringify(image.body)).toContain('messages[0].content[1].image_url.url');

  const stored = await call(local.gateway.url('/api/v1/provider-keys'), {
    headers: local.account.session,
    body: { provider: 'bedrock', slug: 'my-bedrock', apiKey: 'AKIAEXAMPLEEXAMPLE' },
  });
  expect(stored.status).toBe(400);
  expect(stored.body.error.field).toBe('provider');
});
