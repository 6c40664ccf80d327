import { bearer, call } from './support/http.js';
import { type CapturedRequest } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * The `content_moderation` guardrail on the OpenAI moderation engine, through the local runtime
 * started with GATEWAY_MODERATION=openai: wired as the stack wires `moderationUrl` (the URL in
 * the function environment, the key read from its Secrets Manager secret), against the OpenAI
 * simulator's `POST /v1/moderations`, which flags text holding `[sim:flag…]` and nothing else.
 * So a text the local rules would block passes here, and a harmless one with the directive is
 * blocked: the engine, not the rule set, decides.
 */

const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_MODERATION: 'openai' },
  account: 'moderation-api',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'openai',
  resetEach: true,
});

const chat = (body: Record<string, unknown>) =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache', 'X-Guardrails': 'content_moderation' },
    body: { model: 'gpt', ...body },
  });
const b64 = (text: string) => Buffer.from(text).toString('base64');
const paths = (requests: CapturedRequest[]) => requests.map((request) => request.path);

test('a flagged request is a 400 CONTENT_BLOCKED naming the API’s categories, before any model call', async () => {
  const answer = await chat({
    messages: [
      { role: 'system', content: 'Be helpful.' },
      { role: 'user', content: 'A harmless question about gardening [sim:flag=hate,harassment]' },
    ],
  });
  expect(answer.status).toBe(400);
  expect(answer.body.error.code).toBe('CONTENT_BLOCKED');
  expect(answer.body.error.message).toBe(
    'The request was blocked by content moderation (categories: harassment, hate)',
  );
  const requests = await local.simulator.requests();
  expect(paths(requests)).toEqual(['/v1/moderations']);
  // The caller's texts, one input each; the key from the secret the runtime stored.
  expect(requests[0]!.body).toEqual({
    input: ['Be helpful.', 'A harmless question about gardening [sim:flag=hate,harassment]'],
  });
  expect(requests[0]!.headers['authorization']).toBe('Bearer sim-local-key');
});

test('unflagged text passes both ways (the input, then the answer) even where the local rules would block', async () => {
  const answer = await chat({ messages: [{ role: 'user', content: 'How do I make a pipe bomb?' }] });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-guardrail-status')).toBe('content_moderation:pass');
  const requests = await local.simulator.requests();
  expect(paths(requests)).toEqual(['/v1/moderations', '/v1/chat/completions', '/v1/moderations']);
  expect(requests[2]!.body).toEqual({ input: [answer.body.choices[0].message.content] });
});

test('a flagged answer is withheld: 400 CONTENT_BLOCKED for the answer', async () => {
  const reply = `[sim:reply_b64=${b64('Here it is [sim:flag=violence/graphic]')}]`;
  const answer = await chat({ messages: [{ role: 'user', content: reply }] });
  expect(answer.status).toBe(400);
  expect(answer.body.error).toMatchObject({
    code: 'CONTENT_BLOCKED',
    message: "The model's answer was blocked by content moderation (categories: violence/graphic)",
  });
  expect(answer.text).not.toContain('Here it is');
});

test('a streamed answer the API flags ends with the error frame instead of [DONE]', async () => {
  const reply = `[sim:reply_b64=${b64('Streamed words [sim:flag=self-harm]')}]`;
  const answer = await chat({ messages: [{ role: 'user', content: reply }], stream: true });
  expect(answer.status).toBe(200);
  const frames = answer.text
    .split('\n\n')
    .map((frame) => frame.replace(/^data: /, ''))
    .filter((data) => data.startsWith('{'))
    .map((data) => JSON.parse(data) as { error?: { code?: string; message?: string } });
  expect(frames[frames.length - 1]!.error).toMatchObject({ code: 'CONTENT_BLOCKED' });
  expect(frames[frames.length - 1]!.error!.message).toContain('self-harm');
  expect(answer.text).not.toContain('data: [DONE]');
  expect(paths(await local.simulator.requests())).toEqual([
    '/v1/moderations',
    '/v1/chat/completions',
    '/v1/moderations',
  ]);
});

test('an API that cannot answer fails the request closed: 503, and the model is never called', async () => {
  await local.simulator.fault('status:500');
  const answer = await chat({ messages: [{ role: 'user', content: 'Hello there.' }] });
  expect(answer.status).toBe(503);
  expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(paths(await local.simulator.requests())).toEqual(['/v1/moderations']);
});
