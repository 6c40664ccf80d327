import { adminKey, provisionAccount, type TestAccount } from './support/provisioning.js';
import { bearer, call } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { SimulatorControl } from './support/simulators.js';
import { LocalGateway } from '../../local/child-runtime.js';

let gateway: LocalGateway;
let account: TestAccount;
let key: string;

beforeAll(async () => {
  gateway = await LocalGateway.start();
  account = await provisionAccount(gateway, 'images');
  key = (await adminKey(gateway, { accountId: account.accountId, type: 'secret' })).key;
});
afterAll(() => gateway.dispose());

const IMAGE = 'https://images.example.com/cat.png';
const ask = (model: string, url = IMAGE) =>
  call(gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(key), 'X-Cache': 'no-cache' },
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
  const anthropic = SimulatorControl.of(gateway, 'anthropic');
  await anthropic.reset();
  const answer = await ask('claude');
  expect(answer.status).toBe(200);
  expect(answer.body.choices[0].message.content).toContain('(I see 1 image)');
  const [request] = await anthropic.requests();
  expect(JSON.stringify(request!.body)).toContain(IMAGE);
});

test('a model without vision gets a description, written once, counted in usage', async () => {
  const openai = SimulatorControl.of(gateway, 'openai');
  const openrouter = SimulatorControl.of(gateway, 'openrouter');
  await openai.reset();
  await openrouter.reset();

  const first = await ask('deepseek');
  expect(first.status).toBe(200);
  const [upstream] = await openrouter.requests();
  const sent = JSON.stringify(upstream!.body.messages);
  expect(sent).not.toContain(IMAGE);
  expect(sent).toContain('[Image description: Simulated reply from gpt-5');
  expect(await openai.requests()).toHaveLength(1);
  const entries = await ledgerEntries(gateway, account.accountId, first.headers.get('x-request-id')!, 2);
  expect(entries.map((e) => [e.model, e.outcome])).toEqual([
    ['gpt-5', 'ok'],
    ['deepseek/deepseek-v3.2', 'ok'],
  ]);

  const second = await ask('deepseek');
  expect(second.status).toBe(200);
  expect(await openai.requests()).toHaveLength(1); // the description came from the cache
  expect(await ledgerEntries(gateway, account.accountId, second.headers.get('x-request-id')!, 1)).toHaveLength(1);
});

test('a data: URL image is described too', async () => {
  const dataUrl = `data:image/png;base64,${Buffer.from('not really a png').toString('base64')}`;
  const answer = await ask('qwen', dataUrl);
  expect(answer.status).toBe(200);
});
