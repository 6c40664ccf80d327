import { bearer, call } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway({ account: 'images', key: { via: 'admin', body: { type: 'secret' } } });

const IMAGE = 'https://images.example.com/cat.png';
const ask = (model: string, url = IMAGE) =>
  call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
    body: {
      model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    },
  });

test('a vision model gets the image as it is', async () => {
  const anthropic = SimulatorControl.of(local.gateway, 'anthropic');
  await anthropic.reset();
  const answer = await ask('claude');
  expect(answer.status).toBe(200);
  expect(answer.body.choices[0].message.content).toContain('(I see 1 image)');
  const [request] = await anthropic.requests();
  expect(JSON.stringify(request!.body)).toContain(IMAGE);
});

test('a model without vision gets a description, written once, counted in usage', async () => {
  const openai = SimulatorControl.of(local.gateway, 'openai');
  const openrouter = SimulatorControl.of(local.gateway, 'openrouter');
  await openai.reset();
  await openrouter.reset();

  const first = await ask('deepseek');
  expect(first.status).toBe(200);
  const [upstream] = await openrouter.requests();
  const sent = JSON.stringify(upstream!.body.messages);
  expect(sent).not.toContain(IMAGE);
  expect(sent).toContain('[Image description: Simulated reply from gpt-5');
  expect(await openai.requests()).toHaveLength(1);
  const entries = await ledgerEntries(local.gateway, local.account.accountId, first.headers.get('x-request-id')!, 2);
  expect(entries.map((e) => [e.model, e.outcome])).toEqual([
    ['gpt-5', 'ok'],
    ['deepseek/deepseek-v3.2', 'ok'],
  ]);

  const second = await ask('deepseek');
  expect(second.status).toBe(200);
  expect(await openai.requests()).toHaveLength(1); // the description came from the cache
  expect(
    await ledgerEntries(local.gateway, local.account.accountId, second.headers.get('x-request-id')!, 1),
  ).toHaveLength(1);
});

test('a data: URL image is described too', async () => {
  const dataUrl = `data:image/png;base64,${Buffer.from('not really a png').toString('base64')}`;
  const answer = await ask('qwen', dataUrl);
  expect(answer.status).toBe(200);
});
