import { openApiPath } from '../../lambdas/openapi/document.js';
import createClient from 'openapi-fetch';
import OpenAI from 'openai';
import { routes } from '../../lib/routes.js';
import { documentSchemas } from '../support/openapi-schemas.js';
import { useGateway } from './support/gateway-fixture.js';
import { call } from './support/http.js';
import { GeneratedClient } from './support/openapi-client.js';
import { CLIENT_PROGRAM, type Access, type ClientProgram } from './support/openapi-client-program.js';

const local = useGateway({ env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '100' }, account: 'openapi' });
let document: Record<string, any>;
let client: GeneratedClient;
let program: ClientProgram;
let access: Access;

/** Every answer the program got, as `<METHOD> <path template> <status>`, recorded by its clients. */
const answered: string[] = [];
const recording = ((options) => {
  const recorded = createClient(options);
  recorded.use({
    onResponse: ({ request, response, schemaPath }) => {
      answered.push(`${request.method} ${schemaPath} ${response.status}`);
    },
  });
  return recorded;
}) as typeof createClient;

beforeAll(async () => {
  const served = await call(local.gateway.url('/api/v1/openapi.json'));
  if (served.status !== 200) throw new Error(`openapi.json: ${served.status} ${served.text}`);
  document = served.body;
  client = await GeneratedClient.fromDocument(document);
  program = await client.load<ClientProgram>('client', CLIENT_PROGRAM);
  const { baseUrl, apiKey, adminToken } = local.gateway.info;
  const { cookie, email, password } = local.account;
  access = { baseUrl, apiKey, adminToken, cookie, origin: baseUrl, email, password };
}, 60_000);
afterAll(async () => {
  client?.dispose();
});

const schemas = () => documentSchemas(document);
const successSchema = (path: string, method: string, status: number) =>
  `#/paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}/content/application~1json/schema`;

test('openapi.json is served without credentials, as OpenAPI 3.1 of version 2.1.0, naming where it was served', () => {
  expect(document['openapi']).toBe('3.1.0');
  expect(document['info']).toMatchObject({ version: '2.1.0' });
  expect(document['servers']).toEqual([{ url: local.gateway.info.baseUrl, description: expect.any(String) }]);
});

test('the client program calls every route of the manifest (a route without a call is named here)', () => {
  const uncalled = routes
    .filter((route) => !CLIENT_PROGRAM.includes(`.${route.method}('${openApiPath(route.path)}'`))
    .map((route) => `${route.id} (${route.method} ${route.path})`);
  expect({ uncalled }).toEqual({ uncalled: [] });
});

test('health, the document and the models', async () => {
  const found = await program.discover(recording, access);
  expect(['healthy', 'degraded']).toContain(found.status);
  expect(found.version).toBe('2.1.0');
  expect(found.server).toBe(local.gateway.info.baseUrl);
  expect(found.modelIds.length).toBeGreaterThan(0);
  expect(found.modelIds).toContain(found.oneId);
});

test('chat completions with string content, with content parts and streamed; responses; battle and its session, fight, legacy chat', async () => {
  const chat = await program.converse(recording, access);
  expect(chat.statuses).toEqual([200, 200, 200]);
  expect(typeof chat.content).toBe('string');
  expect(chat.partsContent === null || typeof chat.partsContent === 'string').toBe(true);
  expect(chat.stream).toContain('chat.completion.chunk');
  expect(chat.stream.trimEnd().endsWith('data: [DONE]')).toBe(true);
  expect(chat.battleAnswers).toHaveLength(2);
  expect(chat.replayStream).toContain('"type":"session_complete"');
  expect(chat.sessionStatus).toBe('complete');
  expect(chat.sessionIds).toContain(chat.battleId);
  expect(chat.cancelled).toBe(false);
  expect(['computing', 'ready']).toContain(chat.leaderboardStatus);
  expect(chat.fightStream).toContain('"type":"session_complete"');
  expect(typeof chat.legacyContent).toBe('string');
  expect(schemas().mismatches(successSchema('/api/v1/chat/completions', 'post', 200), chat.answers.chat)).toEqual([]);
  expect(chat.responses).toEqual({
    statuses: [200, 200, 200],
    outputTypes: ['message'],
    continuedFrom: chat.answers.response?.id,
    deleted: true,
  });
  expect(schemas().mismatches(successSchema('/api/v1/responses', 'post', 200), chat.answers.response)).toEqual([]);
}, 60_000);

test('search, themes (and a theme that is not there), speech, music, a video with only its prompt', async () => {
  const looked = await program.look(recording, access);
  expect(looked.resultUrls.length).toBeGreaterThan(0);
  expect(typeof looked.description).toBe('string');
  expect(looked.vectors.map((vector) => vector.length)).toEqual([8, 8]);
  expect(looked.embeddingTokens).toBeGreaterThan(0);
  expect(looked.themeName).toBe('Neon Arcade');
  expect([looked.noThemeStatus, looked.noThemeCode]).toEqual([404, 'NOT_FOUND']);
  expect(looked.audioBytes).toBeGreaterThan(0);
  expect(typeof looked.songSeconds).toBe('number');
  expect(looked.taskId).toMatch(/^job_/);
  expect(['Queueing', 'Processing', 'Success']).toContain(looked.jobStatus);
}, 60_000);

test('fashion: a try-on run with typed inputs, its status, and a subscribed stream', async () => {
  const dressed = await program.dress(recording, access);
  expect(dressed.predictionId).not.toBe('');
  expect(dressed.runMeta).toMatch(/^[0-9a-f-]{36}$/);
  expect(['starting', 'in_queue', 'processing', 'completed']).toContain(dressed.predictionStatus);
  expect(dressed.events).toContain('event: fashion');
  expect(dressed.events).toContain('data: [DONE]');
}, 60_000);

test('the dashboard: sign-in (a wrong password is a typed 401), session, MFA, keys, provider keys, usage, sign-out', async () => {
  const managed = await program.manage(recording, access);
  expect([managed.refusedStatus, managed.refusedCode]).toEqual([401, 'UNAUTHORIZED']);
  expect(typeof managed.expiresAt).toBe('string');
  expect(managed.sessionEmail).toBe(local.account.email);
  expect([managed.unchangedStatus, managed.unchangedCode]).toEqual([401, 'UNAUTHORIZED']);
  expect(managed.mfaStatuses).toEqual([409, 200, 409]);
  expect(managed.mfaSecret).toMatch(/^[A-Z2-7]{32}$/);
  expect(managed.loggedOutStatus).toBe(204);
  expect(managed.statuses).toEqual([201, 200, 200, 204]);
  expect(managed.fullKey).toContain(managed.keyId);
  expect(managed.listedIds).toContain(managed.keyId);
  expect(managed.listedSpend).toBe(0);
  expect(managed.wasUpdated).toBe(true);
  expect(managed.providerKeyStatuses).toEqual([201, 200, 204]);
  expect(managed.webhookSecretStatuses).toEqual([200, 200]);
  expect(managed.webhookSecretRotated).toBe(true);
  expect(managed.accountBudget).toEqual({ statuses: [200, 200, 200], limitUsd: 40, cleared: null });
  expect(managed.maskedKeys).toContain('••••1234');
  expect(typeof managed.totalRequests).toBe('number');
  expect(typeof managed.loggedRequests).toBe('number');
  expect(managed.noContent).toEqual([404, 'NOT_FOUND']);
  expect(schemas().mismatches(successSchema('/api/v1/keys', 'post', 201), managed.answers.created)).toEqual([]);
  expect(schemas().mismatches(successSchema('/api/v1/keys', 'get', 200), managed.answers.listed)).toEqual([]);
  expect(schemas().mismatches(successSchema('/api/v1/keys/{id}', 'patch', 200), managed.answers.updated)).toEqual([]);
  expect(schemas().mismatches(successSchema('/api/v1/usage', 'get', 200), managed.answers.usage)).toEqual([]);
  expect(schemas().mismatches(successSchema('/api/v1/requests', 'get', 200), managed.answers.requestLog)).toEqual([]);
  // The check can fail: an answer missing a documented field does not fit.
  expect(schemas().mismatches(successSchema('/api/v1/usage', 'get', 200), { success: true, data: {} })).not.toEqual([]);
});

test('the admin API: an account, a key for it, its usage, the key revoked', async () => {
  const administered = await program.administer(recording, access, `openapi-admin-${process.pid}@example.com`);
  expect(administered.statuses).toEqual([201, 201, 200, 200, 204]);
  expect(administered.budgetedPeriod).toBe('day');
  expect(typeof administered.initialPassword).toBe('string');
  expect(administered.firstSignIn).toEqual({
    statuses: [403, 200],
    refusedCode: 'PASSWORD_CHANGE_REQUIRED',
    signedInAs: administered.accountId,
  });
  expect(administered.usageOf).toBe(administered.accountId);
});

test('every status the runtime answered the program is documented for its operation', () => {
  expect(answered.length).toBeGreaterThanOrEqual(routes.length);
  const undocumented = answered.filter((answer) => {
    const [method, path, status] = answer.split(' ') as [string, string, string];
    return !(status in (document['paths'][path]?.[method.toLowerCase()]?.responses ?? {}));
  });
  expect({ undocumented }).toEqual({ undocumented: [] });
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
  expect(schemas().mismatches('#/components/schemas/Model', models[0])).toEqual([]);
});

/** Calls a consumer could get wrong, each of which the generated types must refuse. */
const MISTAKES: readonly (readonly [string, string, RegExp])[] = [
  ['rateLimit: 50,', "rateLimit: 'fast',", /'string' is not assignable to type 'number/],
  ["period: 'month' }", "period: 'weekly' }", /'"weekly"' is not assignable/],
  ["{ from: '2026-01-01' }", '{ since: 1 }', /since/],
  [
    "{ role: 'tool', tool_call_id: 'call_1', content: 'one white pixel' }",
    "{ role: 'tool', content: 'x' }",
    // Told as not fitting either form of the body (the legacy form has no tool turns), or as the missing field.
    /tool_call_id|'"tool"' is not assignable/,
  ],
  ['model_image: IMAGE, garment_image: IMAGE,', 'model_image: IMAGE,', /garment_image/],
  ["{ prompt: 'A lighthouse at dusk [Push in]' }", "{ prompt: 'A lighthouse', duration: 7 }", /'7' is not assignable/],
];

// Last: type-checking holds the event loop for seconds, which would leave the HTTP client's
// keep-alive sockets to the runtime stale for the calls after it.
test('the client program type-checks strictly against the generated types, and each mistake does not', () => {
  const wrong = MISTAKES.reduce((source, [right, mistaken]) => {
    if (!source.includes(right)) throw new Error(`the program no longer holds ${right}`);
    return source.replace(right, mistaken);
  }, CLIENT_PROGRAM);
  const errors = client.typeErrors({ client: CLIENT_PROGRAM, 'wrong-client': wrong });
  expect(errors['client']).toEqual([]);
  expect(errors['wrong-client']).toEqual(
    expect.arrayContaining(MISTAKES.map(([, , error]) => expect.stringMatching(error))),
  );
}, 60_000);
