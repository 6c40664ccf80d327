import fc from 'fast-check';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * Property: no chat-completions body yields a 5xx, and every 400 names its field (`param`,
 * OpenAI style). Bodies mix valid and invalid values for every field, of both request forms
 * (the OpenAI request and the chat modes' ChatRequest), so that both the gateway's validation
 * and the providers' behind it are reached.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'chat-fuzz',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const anything = fc.oneof(fc.jsonValue(), fc.constantFrom(null, '', 0, -1, 1.5, true, [], {}));
const text = fc.oneof(fc.string(), fc.constantFrom('hi', 'é🙂', '[sim:tool]', '[sim:tools=2]', '[sim:finish=length]'));
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({ url: fc.oneof(fc.webUrl(), fc.constant('data:image/png;base64,aGk='), fc.string()) }),
  }),
  anything,
);
const message = fc.oneof(
  fc.record({
    role: fc.constantFrom('system', 'developer', 'user', 'assistant'),
    content: fc.oneof(text, fc.array(part, { maxLength: 3 })),
  }),
  fc.record({ role: fc.constant('tool'), content: text, tool_call_id: fc.oneof(fc.string(), fc.constant('call_1')) }),
  fc.record({ role: fc.constantFrom('user', 'wizard', 5), content: anything }, { requiredKeys: [] }),
);
const tool = fc.oneof(
  fc.record({
    type: fc.constant('function'),
    function: fc.record({
      name: fc.oneof(fc.constantFrom('get_weather', 'lookup'), fc.string()),
      parameters: fc.oneof(fc.constant({ type: 'object', properties: { city: { type: 'string' } } }), fc.object()),
    }),
  }),
  anything,
);
/** Valid requests, so that some of each run reach the upstream simulators. */
const valid = fc.record({
  model: fc.constantFrom('gpt', 'claude', 'gemini', 'grok', 'deepseek', 'llama'),
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'system'), content: text }), {
    minLength: 1,
    maxLength: 3,
  }),
  stream: fc.boolean(),
  tools: fc.constantFrom(undefined, [
    {
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    },
  ]),
  max_tokens: fc.integer({ min: 1, max: 50 }),
  stop: fc.oneof(fc.constant(undefined), fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 })),
});
/** Valid requests in the chat modes' ChatRequest form, which the route also takes. */
const validChatMode = fc.record({
  model: fc.constantFrom('gpt', 'claude', 'gemini', 'grok'),
  message: text.filter((value) => value.trim() !== ''),
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.constantFrom('earlier') }), {
    maxLength: 2,
  }),
  stream: fc.boolean(),
});
/** The ChatRequest form, fuzzed: a body with `message` is read as that form. */
const chatModeBody = fc.record(
  {
    message: fc.oneof(text, anything),
    model: fc.oneof(fc.constantFrom('gpt', 'claude', 'nope'), anything),
    mode: fc.oneof(fc.constantFrom('chat', 'battle'), anything),
    messages: fc.oneof(fc.array(message, { maxLength: 3 }), anything),
    image_url: fc.oneof(fc.webUrl(), anything),
    stream: fc.oneof(fc.boolean(), anything),
    temperature: anything,
  },
  { requiredKeys: ['message'] },
);
const body = fc.record(
  {
    model: fc.oneof(
      fc.constantFrom('gpt', 'claude', 'gemini', 'grok', 'deepseek', 'llama', 'openai/gpt-5'),
      fc.string(),
    ),
    messages: fc.oneof(fc.array(message, { minLength: 1, maxLength: 4 }), anything),
    stream: fc.oneof(fc.boolean(), anything),
    temperature: fc.oneof(fc.double({ min: -1, max: 3, noNaN: true }), anything),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 50 }), anything),
    top_p: fc.oneof(fc.double({ min: -0.5, max: 1.5, noNaN: true }), anything),
    stop: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 6 }), anything),
    tools: fc.oneof(fc.array(tool, { maxLength: 2 }), anything),
    tool_choice: fc.oneof(
      fc.constantFrom('auto', 'none', 'required', { type: 'function', function: { name: 'get_weather' } }),
      anything,
    ),
    response_format: fc.oneof(fc.constantFrom({ type: 'json_object' }, { type: 'text' }), anything),
    fallback: fc.oneof(fc.array(fc.constantFrom('claude', 'nope'), { maxLength: 2 }), anything),
    retries: fc.oneof(fc.integer({ min: -1, max: 7 }), anything),
    timeout: fc.oneof(fc.integer({ min: 0, max: 400_000 }), anything),
    load_balance: fc.oneof(
      fc.record({
        strategy: fc.constantFrom('weighted', 'round-robin', 'least-latency', 'x'),
        targets: fc.array(
          fc.record({
            model: fc.constantFrom('gpt', 'claude', 'zz'),
            weight: fc.double({ min: -1, max: 5, noNaN: true }),
          }),
          { maxLength: 3 },
        ),
      }),
      anything,
    ),
    guardrails: fc.oneof(
      fc.record({
        enabled: fc.array(fc.constantFrom('pii', 'content_moderation', 'schema_validation', 'x'), { maxLength: 3 }),
      }),
      anything,
    ),
  },
  { requiredKeys: [] },
);

test('no chat-completions body yields a 5xx; every 400 names its field', async () => {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        valid.map((b) => JSON.stringify(b)),
        validChatMode.map((b) => JSON.stringify(b)),
        body.map((b) => JSON.stringify(b)),
        chatModeBody.map((b) => JSON.stringify(b)),
        fc.string(),
      ),
      async (raw) => {
        const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
          headers: { ...bearer(local.key), 'Content-Type': 'application/json', 'X-Cache': 'no-cache' },
          rawBody: raw,
        });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status).toBeLessThan(500);
        if (answer.status === 400) {
          expect(typeof answer.body.error.param).toBe('string');
          expect(answer.body.error.message).toContain(answer.body.error.param);
        }
      },
    ),
    { numRuns: 300 },
  );
  // The generator must reach the providers too, not only the gateway's validation.
  expect(statuses.get(200) ?? 0).toBeGreaterThan(10);
}, 120_000);
