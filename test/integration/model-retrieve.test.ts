import OpenAI from 'openai';
import { call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * GET /api/v1/models/{id} (docs/interface.md §2.4, §4.2) as OpenAI SDKs call it: `models.retrieve`
 * over HTTP against the local runtime, by every kind of name chat completions takes, and the
 * names it does not know, however odd, answered 404 in OpenAI's shape.
 */
const local = useGateway();
let client: OpenAI;

beforeAll(() => {
  client = new OpenAI({ apiKey: local.gateway.info.apiKey, baseURL: local.gateway.url('/api/v1'), maxRetries: 0 });
});

const retrieveRaw = (encodedId: string, headers: Record<string, string> = { 'X-API-Key': local.gateway.info.apiKey }) =>
  call(`${local.gateway.url('/api/v1/models/')}${encodedId}`, { headers });

test('models.retrieve by a default model id answers that entry of the list, rate headers and all', async () => {
  const listed = (await client.models.list()).data.find((model) => model.id === 'claude-sonnet-4-5');
  const { data, response } = await client.models.retrieve('claude-sonnet-4-5').withResponse();
  expect(data).toEqual(listed);
  expect(data).toMatchObject({
    id: 'claude-sonnet-4-5',
    object: 'model',
    owned_by: 'gateway/anthropic',
    _service: { name: 'Claude Sonnet 4.5', aliases: ['claude', 'sonnet', 'claude-sonnet'] },
  });
  expect(Number.isInteger(data.created)).toBe(true);
  expect(response.headers.get('x-ratelimit-limit')).toBeTruthy();
  expect(response.headers.get('x-request-id')).toBeTruthy();
});

test.each([
  ['the family alias', 'claude'],
  ['an extra alias', 'sonnet'],
  ['an alias in another case', 'Claude-Sonnet'],
  ["another route's concrete id (a slash, sent encoded)", 'anthropic/claude-sonnet-4.5'],
])('%s (%s) answers the canonical object, whose id is the default model', async (_, name) => {
  expect(await client.models.retrieve(name)).toEqual(await client.models.retrieve('claude-sonnet-4-5'));
});

test('a default model id that holds a slash is retrieved as itself, its slash encoded or not', async () => {
  const model = await client.models.retrieve('deepseek/deepseek-v3.2');
  expect(model).toMatchObject({ id: 'deepseek/deepseek-v3.2', owned_by: 'gateway/openrouter' });
  const plain = await retrieveRaw('deepseek/deepseek-v3.2');
  expect([plain.status, plain.body]).toEqual([200, model]);
});

test('an unknown id: the SDK raises NotFoundError, code model_not_found, the message naming the model', async () => {
  const error = await client.models.retrieve('gpt-0').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
  expect(notFound.status).toBe(404);
  expect(notFound.code).toBe('model_not_found');
  expect(notFound.param).toBe('id');
  expect(notFound.message).toContain('"gpt-0"');
});

test('a concrete id is exact: a route id in another case is unknown, as in chat', async () => {
  const error = await client.models.retrieve('Claude-Sonnet-4-5').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
});

test.each([
  ['an encoded slash between unknown parts', 'no%2Fsuch%2Fmodel', 'no/such/model'],
  ['unicode', encodeURIComponent('модель-🤖'), 'модель-🤖'],
  ['an encoded NUL and line break', 'gpt%00%0A', 'gpt\u0000\n'],
  ['a malformed escape, passed on as it is', 'gpt%E0%A4%A', 'gpt%E0%A4%A'],
  ['an encoded quote and backslash', encodeURIComponent('"\\'), '"\\'],
])('%s is a clean 404 naming it', async (_, encoded, decoded) => {
  const answer = await retrieveRaw(encoded);
  expect(answer.status).toBe(404);
  expect(answer.body.error).toMatchObject({ type: 'not_found_error', code: 'model_not_found', param: 'id' });
  expect(answer.body.error.message).toContain(JSON.stringify(decoded));
});

test('a very long id is a 404 whose message shows only its start', async () => {
  const answer = await retrieveRaw('m'.repeat(6000));
  expect(answer.status).toBe(404);
  expect(answer.body.error.code).toBe('model_not_found');
  expect(answer.body.error.message).toContain(`"${'m'.repeat(100)}…"`);
  expect(answer.body.error.message.length).toBeLessThan(200);
});

test('the route takes the same credentials as the list: none is 401', async () => {
  const answer = await retrieveRaw('gpt', {});
  expect(answer.status).toBe(401);
  expect(answer.body.error.code).toBe('UNAUTHORIZED');
});
