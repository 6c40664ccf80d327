import { bearer, call, type Answer } from './support/http.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * Every field where a caller hands the gateway a URL for someone else to fetch follows one
 * policy (lambdas/schema/public-url.ts): over HTTP against the local runtime, a URL of the
 * cloud metadata service, of the runtime's own loopback ports (the gateway, the DynamoDB
 * stand-in) or of loopback in the forms that used to pass is a 400 naming the field on every
 * route, and no upstream simulator hears of it.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '100' },
  account: 'caller-urls',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

/** Requests every simulator has captured, together: none may grow on a refusal. */
async function upstreamRequests(): Promise<number> {
  const counts = await Promise.all(
    Object.keys(local.gateway.info.simulators).map(
      async (name) => (await SimulatorControl.of(local.gateway, name).requests()).length,
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

const post = (path: string, body: unknown) => call(local.gateway.url(path), { headers: bearer(local.key), body });

interface Route {
  readonly name: string;
  readonly field: string;
  readonly send: (url: string) => Promise<Answer>;
}

const chatBody = (url: string) => ({
  model: 'claude',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url } },
      ],
    },
  ],
});

const ROUTES: readonly Route[] = [
  {
    name: 'fashion run',
    field: 'inputs.image',
    send: (url) => post('/api/v1/fashion/run', { model_name: 'reframe', inputs: { image: url } }),
  },
  {
    name: 'fashion subscribe',
    field: 'inputs.garment_image',
    send: (url) =>
      post('/api/v1/fashion/subscribe', {
        model_name: 'tryon-v1.6',
        inputs: { model_image: 'https://images.example.com/m.jpg', garment_image: url },
      }),
  },
  {
    name: 'fashion LoRA',
    field: 'inputs.lora_url',
    send: (url) =>
      post('/api/v1/fashion/run', {
        model_name: 'model-create',
        inputs: { prompt: 'a model', lora_url: `${url.replace(/\/?$/, '/')}w.safetensors` },
      }),
  },
  {
    name: 'video submit',
    field: 'first_frame_image',
    send: (url) =>
      post('/api/v1/media/video', { prompt: 'A cat', model: 'minimax-video-2.3-Fast', first_frame_image: url }),
  },
  {
    name: 'chat completions',
    field: 'messages[0].content[1].image_url.url',
    send: (url) => post('/api/v1/chat/completions', chatBody(url)),
  },
  {
    name: 'battle',
    field: 'image_url',
    send: (url) => post('/api/v1/battle', { message: 'What is this?', models: ['gpt', 'claude'], image_url: url }),
  },
  {
    name: 'fight',
    field: 'image_url',
    send: (url) => post('/api/v1/fight', { message: 'What is this?', models: ['gpt', 'claude'], image_url: url }),
  },
  {
    name: 'image analysis',
    field: 'image_url',
    send: (url) => post('/api/v1/images/analyze', { image_url: url }),
  },
  {
    name: 'legacy chat mode',
    field: 'image_url',
    send: (url) => post('/api/chat', { mode: 'chat', model: 'claude', message: 'What is this?', image_url: url }),
  },
];

/** The URLs, some known only once the runtime has started (its own ports). */
const TARGETS: readonly (readonly [string, () => string])[] = [
  ['the metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
  ['the metadata service behind NAT64', () => 'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/'],
  ["the gateway's own port", () => `${local.gateway.info.baseUrl}/api/health`],
  ["the DynamoDB stand-in's port", () => `${local.gateway.aws.dynamodb}/`],
  ['loopback written in decimal', () => 'http://2130706433/'],
  ['loopback as an IPv4-compatible address', () => 'https://[::127.0.0.1]/'],
  ['loopback through 6to4', () => 'https://[2002:7f00:1::]/'],
  ['loopback through wildcard DNS', () => 'https://127.0.0.1.nip.io/a.png'],
  ['loopback by a trailing-dot name', () => 'https://localhost./a.png'],
];

const fieldOf = (answer: Answer): string | undefined => answer.body?.error?.field ?? answer.body?.error?.param;

describe.each(ROUTES)('$name', (route) => {
  test.each(TARGETS)(`a URL of %s is a 400 naming ${route.field}; no upstream is called`, async (_, target) => {
    const before = await upstreamRequests();
    const answer = await route.send(target());
    expect([answer.status, fieldOf(answer)]).toEqual([400, route.field]);
    expect(answer.body.error.message).toMatch(
      new RegExp(`^${route.field.replace(/[.[\]]/g, '\\$&')}: must be a public`),
    );
    expect(await upstreamRequests()).toBe(before);
  });
});

test('a public URL, by contrast, reaches the upstream (the counts above can move)', async () => {
  const anthropic = SimulatorControl.of(local.gateway, 'anthropic');
  const before = await upstreamRequests();
  // Offline the name does not resolve, which the policy accepts; the simulator never fetches it.
  const answer = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
    body: chatBody('http://images.example.com/cat.png'),
  });
  expect(answer.status).toBe(200);
  expect(await upstreamRequests()).toBeGreaterThan(before);
  expect(JSON.stringify((await anthropic.requests()).at(-1)!.body)).toContain('http://images.example.com/cat.png');
});
