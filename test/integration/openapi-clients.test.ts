import createClient from 'openapi-fetch';
import OpenAI from 'openai';
import { documentSchemas } from '../support/openapi-schemas.js';
import { useGateway } from './support/gateway-fixture.js';
import { call } from './support/http.js';
import { GeneratedClient } from './support/openapi-client.js';

const local = useGateway({ account: 'openapi' });
let document: Record<string, unknown>;
let client: GeneratedClient;

beforeAll(async () => {
  const served = await call(local.gateway.url('/api/v1/openapi.json'));
  if (served.status !== 200) throw new Error(`openapi.json: ${served.status} ${served.text}`);
  document = served.body;
  client = await GeneratedClient.fromDocument(document);
}, 60_000);
afterAll(async () => {
  client?.dispose();
});

/**
 * A client written against the generated types: models with a key; create, list and delete a
 * key with the dashboard session; usage with the key; a chat completion in each of its two
 * request forms, leaving out what has a default (`temperature`, `stream`). Typed field access
 * (`data.data.keyId`) only compiles if the document describes those answers.
 */
const PROGRAM = `
import type createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export interface Dashboard { cookie: string; origin: string }

export async function exercise(create: typeof createClient, baseUrl: string, apiKey: string, dashboard: Dashboard) {
  const withKey = create<paths>({ baseUrl, headers: { Authorization: 'Bearer ' + apiKey } });
  const withSession = create<paths>({ baseUrl, headers: { Cookie: dashboard.cookie, Origin: dashboard.origin } });

  const models = await withKey.GET('/api/v1/models');
  const modelIds: string[] = (models.data?.data ?? []).map((model) => model.id);

  const created = await withSession.POST('/api/v1/keys', { body: { name: 'openapi-client', rateLimit: 50 } });
  const keyId: string = created.data?.data.keyId ?? '';
  const listed = await withSession.GET('/api/v1/keys');
  const listedIds: string[] = (listed.data?.data.keys ?? []).map((key) => key.id);
  const deleted = await withSession.DELETE('/api/v1/keys/{id}', { params: { path: { id: keyId } } });

  const usage = await withKey.GET('/api/v1/usage', { params: { query: { from: '2026-01-01' } } });
  const totalRequests: number | undefined = usage.data?.data.totalRequests;

  const openAiForm = await withKey.POST('/api/v1/chat/completions', {
    body: { model: 'gpt', messages: [{ role: 'user', content: 'typed' }] },
  });
  const chatModeForm = await withKey.POST('/api/v1/chat/completions', {
    body: { model: 'gpt', message: 'typed', stream: false },
  });
  // JSON or an event stream, as stream says: read by the test, at run time.
  const chatAnswers: unknown[] = [openAiForm.data, chatModeForm.data];

  return {
    statuses: [
      models.response.status,
      created.response.status,
      listed.response.status,
      deleted.response.status,
      usage.response.status,
      openAiForm.response.status,
      chatModeForm.response.status,
    ],
    chatAnswers,
    modelIds,
    keyId,
    fullKey: created.data?.data.key,
    listedIds,
    totalRequests,
    answers: { models: models.data, created: created.data, listed: listed.data, usage: usage.data },
  };
}
`;

interface ClientProgram {
  exercise(
    create: typeof createClient,
    baseUrl: string,
    apiKey: string,
    dashboard: { cookie: string; origin: string },
  ): Promise<{
    statuses: number[];
    modelIds: string[];
    keyId: string;
    fullKey: string | undefined;
    listedIds: string[];
    totalRequests: number | undefined;
    chatAnswers: unknown[];
    answers: Record<'models' | 'created' | 'listed' | 'usage', unknown>;
  }>;
}

test('openapi.json is served without credentials, as OpenAPI 3.1 of version 2.1.0', () => {
  expect(document['openapi']).toBe('3.1.0');
  expect(document['info']).toMatchObject({ version: '2.1.0' });
});

test('the generated client calls models, keys and usage on the local runtime; answers fit their schemas', async () => {
  const program = await client.load<ClientProgram>('client', PROGRAM);
  const result = await program.exercise(createClient, local.gateway.info.baseUrl, local.gateway.info.apiKey, {
    cookie: local.account.cookie,
    origin: local.gateway.info.baseUrl,
  });
  expect(result.statuses).toEqual([200, 201, 200, 204, 200, 200, 200]);
  expect(result.modelIds.length).toBeGreaterThan(0);
  expect(result.fullKey).toContain(result.keyId);
  expect(result.listedIds).toContain(result.keyId);
  expect(typeof result.totalRequests).toBe('number');

  const schemas = documentSchemas(document);
  for (const answer of result.chatAnswers) {
    expect(answer).toMatchObject({ choices: [{ message: { content: expect.stringMatching(/you said: typed$/) } }] });
    expect(schemas.mismatches('#/components/schemas/ChatCompletion', answer)).toEqual([]);
  }
  const successSchema = (path: string, method: string, status: number) =>
    `#/paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}/content/application~1json/schema`;
  expect(schemas.mismatches(successSchema('/api/v1/models', 'get', 200), result.answers.models)).toEqual([]);
  expect(schemas.mismatches(successSchema('/api/v1/keys', 'post', 201), result.answers.created)).toEqual([]);
  expect(schemas.mismatches(successSchema('/api/v1/keys', 'get', 200), result.answers.listed)).toEqual([]);
  expect(schemas.mismatches(successSchema('/api/v1/usage', 'get', 200), result.answers.usage)).toEqual([]);
  // The check can fail: an answer missing a documented field does not fit.
  expect(schemas.mismatches(successSchema('/api/v1/models', 'get', 200), { object: 'list' })).not.toEqual([]);
});

test('the openai SDK lists the models the document describes', async () => {
  const openai = new OpenAI({
    apiKey: local.gateway.info.apiKey,
    baseURL: local.gateway.url('/api/v1'),
    maxRetries: 0,
  });
  const models = [];
  for await (const model of openai.models.list()) models.push(model);
  expect(models.length).toBeGreaterThan(0);
  expect(documentSchemas(document).mismatches('#/components/schemas/Model', models[0])).toEqual([]);
});

// Last: type-checking holds the event loop for seconds, which would leave the HTTP client's
// keep-alive sockets to the runtime stale for the calls after it.
test('a client typed from the served document type-checks, and a wrong call does not', () => {
  const wrong = PROGRAM.replace('rateLimit: 50 }', "rateLimit: 'fast' }")
    .replace("{ from: '2026-01-01' }", '{ since: 1 }')
    // Neither form: no `messages`, no `message`.
    .replace("message: 'typed', stream: false", 'stream: false');
  const errors = client.typeErrors({ client: PROGRAM, 'wrong-client': wrong });
  expect(errors['client']).toEqual([]);
  expect(errors['wrong-client']).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/'string' is not assignable to type 'number/),
      expect.stringMatching(/since/),
      expect.stringMatching(/'message' is missing|'messages' is missing/),
    ]),
  );
}, 60_000);
