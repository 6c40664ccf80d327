import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { gatewayResponse, gatewayResponseTemplate } from '../../lib/gateway-responses.js';
import { call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

const local = useGateway();

test('GET /api/health needs no credentials and lists every family', async () => {
  const answer = await call(local.gateway.url('/api/health'));
  expect(answer.status).toBe(200);
  const data = answer.body.data;
  expect(answer.body.success).toBe(true);
  expect(['healthy', 'degraded']).toContain(data.status);
  expect(data.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(Math.abs(Date.parse(data.timestamp) - Date.now())).toBeLessThan(60_000);
  expect(typeof data.uptime).toBe('number');
  expect(data.services).toHaveLength(10);
  for (const service of data.services) expect(['up', 'unconfigured']).toContain(service.status);
  expect(answer.headers.get('x-request-id')).toBeTruthy();
});

test('GET /api/v1/models lists ten families in the docs/interface.md §2.4 shape', async () => {
  const answer = await call(local.gateway.url('/api/v1/models'), {
    headers: { 'X-API-Key': local.gateway.info.apiKey },
  });
  expect(answer.status).toBe(200);
  expect(answer.body.object).toBe('list');
  expect(answer.body.data).toHaveLength(10);
  for (const model of answer.body.data) {
    expect(model).toMatchObject({ object: 'model', owned_by: expect.stringMatching(/^gateway\/[a-z]+$/) });
    expect(Number.isInteger(model.created)).toBe(true);
    expect(model._service.aliases.length).toBeGreaterThan(0);
  }
});

test('the official openai SDK lists models and surfaces auth errors', async () => {
  const client = new OpenAI({
    apiKey: local.gateway.info.apiKey,
    baseURL: local.gateway.url('/api/v1'),
    maxRetries: 0,
  });
  const page = await client.models.list();
  expect(page.data.map((m) => m.id)).toContain('gpt-5');

  const bad = new OpenAI({ apiKey: 'sk_wrong', baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
  const error = await bad.models.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('INVALID_API_KEY');
});

test('X-Request-ID: a sane client id is echoed, anything else replaced', async () => {
  const echoed = await call(local.gateway.url('/api/health'), { headers: { 'X-Request-ID': 'client-req-12345' } });
  expect(echoed.headers.get('x-request-id')).toBe('client-req-12345');
  const replaced = await call(local.gateway.url('/api/health'), { headers: { 'X-Request-ID': 'bad id with spaces' } });
  expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
});

test('unknown routes and wrong methods are 404, as the API Gateway gateway response answers', async () => {
  const gatewayAnswer = JSON.parse(gatewayResponseTemplate(gatewayResponse('MISSING_AUTHENTICATION_TOKEN'))) as unknown;
  const missing = await call(local.gateway.url('/api/v1/nothing'));
  expect(missing.status).toBe(404);
  expect(missing.body).toEqual(gatewayAnswer);
  expect(missing.body.error.code).toBe('NOT_FOUND');
  const wrongMethod = await call(local.gateway.url('/api/health'), { method: 'DELETE' });
  expect(wrongMethod.status).toBe(404);
  expect(wrongMethod.body).toEqual(gatewayAnswer);
});

test('CORS: allowed origins are reflected with credentials, others get nothing', async () => {
  const origin = local.gateway.info.baseUrl;
  const allowed = await call(local.gateway.url('/api/health'), { headers: { Origin: origin } });
  expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
  expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
  expect(allowed.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
  const foreign = await call(local.gateway.url('/api/health'), { headers: { Origin: 'https://evil.example' } });
  expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  const preflight = await call(local.gateway.url('/api/v1/keys'), {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
});

test("the README's OpenAI SDK example works against the gateway as written", async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const baseURL = /new OpenAI\(\{[^}]*baseURL: '([^']+)'/.exec(readme)?.[1];
  expect(baseURL).toBe('http://127.0.0.1:8787/api/v1');
  const model = /chat\.completions\.create\(\{ model: '([^']+)'/.exec(readme)?.[1];
  const client = new OpenAI({
    apiKey: local.gateway.info.apiKey,
    baseURL: baseURL!.replace('http://127.0.0.1:8787', local.gateway.info.baseUrl),
    maxRetries: 0,
  });
  const answer = await client.chat.completions.create({ model: model!, messages: [{ role: 'user', content: 'Hi' }] });
  expect(answer.choices[0]!.message.content).toBeTruthy();
});
