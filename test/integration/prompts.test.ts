import { bearer, call } from './support/http.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({
  account: 'prompts',
  key: { via: 'admin', body: { type: 'secret' } },
  simulator: 'openai',
  resetEach: true,
});

const chat = (extra: Record<string, unknown>) =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
    body: { model: 'gpt', messages: [{ role: 'user', content: 'My order is late.' }], ...extra },
  });

test('the production version is rendered before the conversation', async () => {
  const answer = await chat({ prompt_id: 'support-reply', prompt_variables: { customer_name: 'Ada' } });
  expect(answer.status).toBe(200);
  const [request] = await local.simulator.requests();
  expect(request!.body.messages).toEqual([
    {
      role: 'system',
      content: 'You are a support agent for Example Corp. Keep a friendly tone and address the customer as Ada.',
    },
    { role: 'assistant', content: 'Hello Ada, how can I help you today?' },
    { role: 'user', content: 'My order is late.' },
  ]);
});

test('a pinned version is used as it is', async () => {
  await chat({ prompt_id: 'support-reply', prompt_version: 1, prompt_variables: { customer_name: 'Bo' } });
  const [request] = await local.simulator.requests();
  expect(request!.body.messages[0]).toEqual({
    role: 'system',
    content: 'You are a support agent. Answer Bo politely.',
  });
});

test('missing variables are a 400 naming them', async () => {
  const answer = await chat({ prompt_id: 'support-reply' });
  expect(answer.status).toBe(400);
  expect(answer.body.error.param).toBe('prompt_variables');
  expect(answer.body.error.message).toContain('customer_name');
  expect(await local.simulator.requests()).toHaveLength(0);
});

test('an unknown prompt or version is a 400 naming the field', async () => {
  expect((await chat({ prompt_id: 'no-such-prompt' })).body.error.param).toBe('prompt_id');
  expect(
    (await chat({ prompt_id: 'support-reply', prompt_version: 99, prompt_variables: { customer_name: 'x' } })).body
      .error.param,
  ).toBe('prompt_version');
});

test('the prompt service being down is a 503, not a guess', async () => {
  const prompts = SimulatorControl.of(local.gateway, 'prompts');
  await prompts.fault('status:503', 5, 'summarize');
  const answer = await chat({ prompt_id: 'summarize', prompt_variables: { text: 'long text' } });
  expect(answer.status).toBe(503);
  expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
  await prompts.reset();
});
