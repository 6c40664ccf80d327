import type createClient from 'openapi-fetch';

/**
 * A client program written as a consumer writes one against the types openapi-typescript
 * generates from the served document (default options), with openapi-fetch: an ordinary call to
 * every route of the manifest and a typed read of each answer. Type-checked strictly as one
 * program, then run. `Expect<Same<…>>` pins a read's type exactly, so a document that types an
 * answer looser (a union with an error, `unknown`) or a body stricter (a defaulted field made
 * required, `Record<string, never>`) fails the compile.
 *
 * Every manifest route needs a call here, written `.<METHOD>('<path>'` (the test checks the
 * text): a route added to lib/routes.ts fails openapi-clients.test.ts until it has one.
 */
export const CLIENT_PROGRAM = `
import type createClient from 'openapi-fetch';
import type { paths } from './schema.js';

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when T is true. */
type Expect<T extends true> = T;

export interface Access {
  baseUrl: string;
  apiKey: string;
  adminToken: string;
  /** A dashboard session: its cookie, and the origin its writes come from. */
  cookie: string;
  origin: string;
  email: string;
  password: string;
}

type Create = typeof createClient;
type ChatRequest = paths['/api/v1/chat/completions']['post']['requestBody']['content']['application/json'];
type FashionRequest = paths['/api/v1/fashion/subscribe']['post']['requestBody']['content']['application/json'];
const IMAGE = 'https://images.example.com/model.jpg';
const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const text = async (stream: Response['body'] | undefined): Promise<string> => (stream ? new Response(stream).text() : '');

function clients(create: Create, access: Access) {
  const { baseUrl } = access;
  return {
    anonymous: create<paths>({ baseUrl }),
    withKey: create<paths>({ baseUrl, headers: { Authorization: 'Bearer ' + access.apiKey } }),
    withSession: create<paths>({ baseUrl, headers: { Cookie: access.cookie, Origin: access.origin } }),
    asAdmin: create<paths>({ baseUrl, headers: { Authorization: 'Bearer ' + access.adminToken } }),
  };
}

/** Health, this document and the models. */
export async function discover(create: Create, access: Access) {
  const { anonymous, withKey } = clients(create, access);
  const health = await anonymous.GET('/api/health');
  const status = health.data?.data.status;
  type HealthStatus = Expect<Same<typeof status, 'healthy' | 'degraded' | undefined>>;

  const document = await anonymous.GET('/api/v1/openapi.json');
  const version: string | undefined = document.data?.info.version;
  const server: string | undefined = document.data?.servers?.[0]?.url;

  const models = await withKey.GET('/api/v1/models');
  const modelIds: string[] = (models.data?.data ?? []).map((model) => model.id);
  const one = await withKey.GET('/api/v1/models/{id}', { params: { path: { id: 'claude' } } });
  const oneId: string | undefined = one.data?.id;
  return { status, version, server, modelIds, oneId };
}

/** Chat completions (string content, content parts, a stream), battle, fight and the legacy route. */
export async function converse(create: Create, access: Access) {
  const { withKey } = clients(create, access);
  const plain = await withKey.POST('/api/v1/chat/completions', {
    params: { header: { 'X-Cache': 'no-cache' } },
    body: {
      model: 'gpt',
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'Say hello' },
      ],
      max_tokens: 50,
    },
  });
  // The 200 is the JSON completion or, streamed, its chunks: the object tag tells them apart.
  if (plain.data?.object !== 'chat.completion') throw new Error('chat: ' + plain.response.status);
  const content = plain.data.choices[0].message.content;
  type PlainContent = Expect<Same<typeof content, string | null>>;

  // A client that reads JSON answers only (openapi-fetch's media type parameter) reads it directly.
  const jsonOnly = create<paths, 'application/json'>({
    baseUrl: access.baseUrl,
    headers: { Authorization: 'Bearer ' + access.apiKey },
  });
  const parts = await jsonOnly.POST('/api/v1/chat/completions', {
    body: {
      model: 'claude',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Use the tool when you need to.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: PIXEL, detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'one white pixel' },
        { role: 'user', content: 'So?' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'look', parameters: { type: 'object', properties: { detail: { type: 'string' } } } },
        },
      ],
      temperature: 0.2,
      response_format: { type: 'text' },
    },
  });
  const partsContent = parts.data?.choices[0].message.content;
  type PartsContent = Expect<Same<typeof partsContent, string | null | undefined>>;

  // openapi-fetch keeps \`parseAs\` only when it can infer the whole init from the call: a body
  // whose literals need the body's type (a role) is typed apart first.
  const count: ChatRequest = { model: 'gpt', messages: [{ role: 'user', content: 'Count to three' }], stream: true };
  const streamed = await withKey.POST('/api/v1/chat/completions', { body: count, parseAs: 'stream' });
  const stream = await text(streamed.data);

  const battle = await withKey.POST('/api/v1/battle', {
    body: { message: 'Name a colour', models: ['gpt', 'claude'], stream: false },
  });
  const battleAnswers: string[] =
    battle.data && 'responses' in battle.data ? battle.data.responses.map((response) => response.message) : [];

  // The battle's session again: its events from the start, its state, the list, and a cancel (too late).
  const battleId: string = battle.data && 'id' in battle.data ? battle.data.id : '';
  const session = { params: { path: { id: battleId } } };
  const replay = await withKey.GET('/api/v1/sessions/{id}/events', {
    params: { path: { id: battleId }, header: { 'Last-Event-ID': '0' } },
    parseAs: 'stream',
  });
  const replayStream = await text(replay.data);
  const state = await withKey.GET('/api/v1/sessions/{id}', session);
  const sessionStatus: string | undefined = state.data?.data.status;
  const listed = await withKey.GET('/api/v1/sessions', { params: { query: { limit: '5' } } });
  const sessionIds: string[] = (listed.data?.data.sessions ?? []).map((summary) => summary.id);
  const cancel = await withKey.POST('/api/v1/sessions/{id}/cancel', session);
  const cancelled: boolean | undefined = cancel.data?.data.cancelled;
  const leaderboard = await withKey.GET('/api/v1/arena/leaderboard', { params: { query: { family: 'gpt,claude' } } });
  const leaderboardStatus: string | undefined = leaderboard.data?.data.status;

  const fight = await withKey.POST('/api/v1/fight', {
    body: { message: 'Name a prime number', models: ['gpt', 'claude'], rounds: 1 },
    parseAs: 'stream',
  });
  const fightStream = await text(fight.data);

  const legacy = await withKey.POST('/api/chat', { body: { mode: 'chat', message: 'Say hi', model: 'gpt', stream: false } });
  const legacyContent =
    legacy.data && 'object' in legacy.data && legacy.data.object === 'chat.completion'
      ? legacy.data.choices[0].message.content
      : undefined;

  // The Responses API: a response, read back, continued by previous_response_id, then deleted.
  const created = await withKey.POST('/api/v1/responses', {
    body: { model: 'gpt', instructions: 'Answer briefly.', input: 'Say hello', max_output_tokens: 50 },
  });
  const createdResponse = created.data && 'output' in created.data ? created.data : undefined;
  const responseId: string = createdResponse?.id ?? '';
  const byId = { params: { path: { id: responseId } } };
  const retrieved = await withKey.GET('/api/v1/responses/{id}', byId);
  const continued = await withKey.POST('/api/v1/responses', {
    body: { model: 'claude', previous_response_id: responseId, input: [{ role: 'user', content: 'And again' }] },
  });
  const continuedFrom = continued.data && 'output' in continued.data ? continued.data.previous_response_id : undefined;
  const deleted = await withKey.DELETE('/api/v1/responses/{id}', byId);
  const responses = {
    statuses: [created.response.status, retrieved.response.status, continued.response.status],
    outputTypes: (retrieved.data?.output ?? []).map((item) => item.type),
    continuedFrom,
    deleted: deleted.data?.deleted,
  };

  return {
    responses,
    statuses: [plain.response.status, parts.response.status, streamed.response.status],
    content,
    partsContent,
    stream,
    battleAnswers,
    battleId,
    replayStream,
    sessionStatus,
    sessionIds,
    cancelled,
    leaderboardStatus,
    fightStream,
    legacyContent,
    answers: { chat: plain.data, response: createdResponse },
  };
}

/** Search, image analysis, embeddings, themes (one by id, and one that is not there), speech, music and video. */
export async function look(create: Create, access: Access) {
  const { withKey } = clients(create, access);
  const search = await withKey.POST('/api/v1/search', { body: { query: 'why are there tides', num_results: 3 } });
  const resultUrls: string[] = (search.data?.data.results ?? []).map((result) => result.url);
  const analysis = await withKey.POST('/api/v1/images/analyze', { body: { image: PIXEL, prompt: 'What colour?' } });
  const description: string | undefined = analysis.data?.data.description;
  const embedded = await withKey.POST('/api/v1/embeddings', {
    body: { model: 'text-embedding-3-small', input: ['tides', 'moon'], dimensions: 8 },
  });
  const vectors = (embedded.data?.data ?? []).map((item) => item.embedding);
  type Vector = Expect<Same<(typeof vectors)[number], number[] | string>>;
  const embeddingTokens: number | undefined = embedded.data?.usage.prompt_tokens;

  const theme = await withKey.GET('/api/v1/themes', { params: { query: { id: 'neon-arcade' } } });
  const themeName: string | undefined = theme.data?.data.name;
  const noTheme = await withKey.GET('/api/v1/themes', { params: { query: { id: 'no-such-theme' } } });
  const noThemeCode: string | undefined = noTheme.error?.error.code;

  const speech = await withKey.POST('/api/v1/media/speech', { body: { text: 'Hello there' }, parseAs: 'arrayBuffer' });
  const audioBytes: number = speech.data?.byteLength ?? 0;

  const music = await withKey.POST('/api/v1/media/music', {
    body: { model: 'music-2.5+', prompt: 'calm piano [sim:latency_ms=20]', is_instrumental: true },
  });
  const songSeconds: number | undefined = music.data?.data.duration;

  // Only the required field: the model, duration, resolution and prompt optimizer have defaults.
  const video = await withKey.POST('/api/v1/media/video', { body: { prompt: 'A lighthouse at dusk [Push in]' } });
  const taskId: string = video.data?.data.task_id ?? '';
  const job = await withKey.GET('/api/v1/media/video/status', { params: { query: { task_id: taskId } } });
  const jobStatus = job.data?.data.status;
  type JobStatus = Expect<Same<typeof jobStatus, 'Queueing' | 'Processing' | 'Success' | 'Fail' | undefined>>;

  return { resultUrls, description, vectors, embeddingTokens, themeName, noThemeStatus: noTheme.response.status, noThemeCode, audioBytes, songSeconds, taskId, jobStatus };
}

/** Fashion: run (with an Idempotency-Key), its status, and a subscribed stream. */
export async function dress(create: Create, access: Access) {
  const { withKey } = clients(create, access);
  const run = await withKey.POST('/api/v1/fashion/run', {
    params: { header: { 'Idempotency-Key': 'openapi-client-' + access.apiKey.slice(-8) } },
    body: {
      model_name: 'tryon-v1.6',
      inputs: { model_image: IMAGE, garment_image: IMAGE, category: 'tops', num_samples: 1 },
    },
  });
  const predictionId: string = run.data?.data.prediction_id ?? '';
  const runMeta: string | undefined = run.data?.meta.requestId;

  const prediction = await withKey.GET('/api/v1/fashion/status/{id}', { params: { path: { id: predictionId } } });
  const outputs: string[] | null | undefined = prediction.data?.data.output;

  const removal: FashionRequest = { model_name: 'background-remove', inputs: { image: IMAGE + '?x=[sim:polls=0]' } };
  const subscribed = await withKey.POST('/api/v1/fashion/subscribe', {
    body: removal,
    parseAs: 'stream',
  });
  const events = await text(subscribed.data);
  return { predictionId, runMeta, predictionStatus: prediction.data?.data.status, outputs, events };
}

/** The dashboard: sign-in (and a wrong password), the session, keys, provider keys, usage, sign-out. */
export async function manage(create: Create, access: Access) {
  const { anonymous, withKey, withSession } = clients(create, access);
  const refused = await anonymous.POST('/api/v1/auth/login', { body: { email: access.email, password: 'not-it-' } });
  const refusedCode: string | undefined = refused.error?.error.code;
  const login = await anonymous.POST('/api/v1/auth/login', { body: { email: access.email, password: access.password } });
  // A 200 is a session; a 202 (a deployment that requires MFA, a user without it) is a set-up.
  const signedInAs = login.data?.data;
  const expiresAt: string | undefined = signedInAs && 'expiresAt' in signedInAs ? signedInAs.expiresAt : undefined;
  const cookie = /gw_session=[^;]*/.exec(login.response.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const signedIn = create<paths>({ baseUrl: access.baseUrl, headers: { Cookie: cookie, Origin: access.origin } });
  const session = await signedIn.GET('/api/v1/auth/session');
  const sessionEmail: string | undefined = session.data?.data.email;
  // A wrong current password: refused, and nothing changes for the sections after this one.
  const unchanged = await signedIn.POST('/api/v1/auth/password', {
    body: { currentPassword: 'not-it-', newPassword: 'Never-Set-123' },
  });
  const unchangedCode: string | undefined = unchanged.error?.error.code;
  // The authenticator routes, leaving MFA off for the sections after this one: a code with no
  // set-up waiting, a set-up begun (and left to expire), and turning off an authenticator not on.
  const unconfirmed = await signedIn.POST('/api/v1/auth/mfa', { body: { totpCode: '000000' } });
  const mfaSetup = await signedIn.POST('/api/v1/auth/mfa', { body: { currentPassword: access.password } });
  const mfaSecret: string | undefined = mfaSetup.data?.data.setup?.secret;
  const notOn = await signedIn.DELETE('/api/v1/auth/mfa', {
    body: { currentPassword: access.password, totpCode: '000000' },
  });
  const loggedOut = await signedIn.POST('/api/v1/auth/logout');

  const created = await withSession.POST('/api/v1/keys', {
    body: { name: 'openapi-client', rateLimit: 50, budget: { limitUsd: 5, period: 'month' } },
  });
  const keyId: string = created.data?.data.keyId ?? '';
  const listed = await withSession.GET('/api/v1/keys');
  const listedIds: string[] = (listed.data?.data.keys ?? []).map((key) => key.id);
  const listedBudget = (listed.data?.data.keys ?? []).find((key) => key.id === keyId)?.budget;
  const listedSpend: number | undefined = listedBudget?.spentUsd;
  const updated = await withSession.PATCH('/api/v1/keys/{id}', {
    params: { path: { id: keyId } },
    body: { name: 'renamed', enabled: false },
  });
  const wasUpdated: boolean | undefined = updated.data?.data.updated;
  const deleted = await withSession.DELETE('/api/v1/keys/{id}', { params: { path: { id: keyId } } });

  const stored = await withSession.POST('/api/v1/provider-keys', {
    body: { provider: 'anthropic', slug: 'openapi-client', apiKey: 'sk-ant-openapi-client-1234', displayName: 'Mine' },
  });
  const providerKeyId: string = stored.data?.data.id ?? '';
  const providerKeys = await withSession.GET('/api/v1/provider-keys');
  const maskedKeys: string[] = (providerKeys.data?.data.keys ?? []).map((key) => key.apiKey);
  const unstored = await withSession.DELETE('/api/v1/provider-keys/{id}', { params: { path: { id: providerKeyId } } });

  const usage = await withKey.GET('/api/v1/usage', { params: { query: { from: '2026-01-01' } } });
  const totalRequests: number | undefined = usage.data?.data.totalRequests;
  const requestLog = await withKey.GET('/api/v1/requests', { params: { query: { limit: '5' } } });
  const loggedRequests: number | undefined = requestLog.data?.data.requests.length;
  // This key keeps no content: the typed 404.
  const noContent = await withKey.GET('/api/v1/requests/{id}', { params: { path: { id: 'not-kept' } } });
  const noContentCode: string | undefined = noContent.error?.error.code;

  const budgetSet = await withSession.PATCH('/api/v1/budget', { body: { budget: { limitUsd: 40, period: 'month' } } });
  const budgetRead = await withSession.GET('/api/v1/budget');
  const accountLimit: number | undefined = budgetRead.data?.data.budget?.limitUsd;
  const budgetCleared = await withSession.PATCH('/api/v1/budget', { body: { budget: null } });
  const clearedBudget = budgetCleared.data?.data.budget;

  const webhookSecret = await withSession.GET('/api/v1/webhooks/secret');
  const firstSecret: string = webhookSecret.data?.data.secret ?? '';
  const rotatedSecret = await withSession.POST('/api/v1/webhooks/secret/rotate');
  const previousSecret: string | null | undefined = rotatedSecret.data?.data.previousSecret;

  return {
    statuses: [created.response.status, listed.response.status, updated.response.status, deleted.response.status],
    refusedStatus: refused.response.status,
    refusedCode,
    expiresAt,
    sessionEmail,
    unchangedStatus: unchanged.response.status,
    unchangedCode,
    mfaStatuses: [unconfirmed.response.status, mfaSetup.response.status, notOn.response.status],
    mfaSecret,
    loggedOutStatus: loggedOut.response.status,
    keyId,
    fullKey: created.data?.data.key,
    listedIds,
    listedSpend,
    wasUpdated,
    providerKeyStatuses: [stored.response.status, providerKeys.response.status, unstored.response.status],
    maskedKeys,
    webhookSecretStatuses: [webhookSecret.response.status, rotatedSecret.response.status],
    accountBudget: {
      statuses: [budgetSet.response.status, budgetRead.response.status, budgetCleared.response.status],
      limitUsd: accountLimit,
      cleared: clearedBudget,
    },
    webhookSecretRotated: firstSecret !== '' && previousSecret === firstSecret,
    totalRequests,
    loggedRequests,
    noContent: [noContent.response.status, noContentCode],
    answers: {
      created: created.data,
      listed: listed.data,
      updated: updated.data,
      usage: usage.data,
      requestLog: requestLog.data,
    },
  };
}

/** The admin API: an account, a key for it, its usage, the key revoked. */
export async function administer(create: Create, access: Access, email: string) {
  const { asAdmin } = clients(create, access);
  const account = await asAdmin.POST('/api/admin/v1/accounts', { body: { email, name: 'OpenAPI client' } });
  const accountId: string = account.data?.data.accountId ?? '';
  const initialPassword: string | undefined = account.data?.data.dashboard.initialPassword;
  // The user's first sign-in: the admin-set password signs in only with the user's own beside it.
  const anonymous = create<paths>({ baseUrl: access.baseUrl });
  const refused = await anonymous.POST('/api/v1/auth/login', { body: { email, password: initialPassword ?? '' } });
  const replaced = await anonymous.POST('/api/v1/auth/login', {
    body: { email, password: initialPassword ?? '', newPassword: \`\${initialPassword}-own\` },
  });
  const replacedAs = replaced.data?.data;
  const firstSignIn = {
    statuses: [refused.response.status, replaced.response.status],
    refusedCode: refused.error?.error.code,
    signedInAs: replacedAs && 'accountId' in replacedAs ? replacedAs.accountId : undefined,
  };
  const key = await asAdmin.POST('/api/admin/v1/keys', { body: { accountId, type: 'secret', rateLimit: 10 } });
  const keyId: string = key.data?.data.keyId ?? '';
  const budgeted = await asAdmin.PATCH('/api/admin/v1/accounts/{id}', {
    params: { path: { id: accountId } },
    body: { budget: { limitUsd: 10, period: 'day' } },
  });
  const budgetedPeriod: string | undefined = budgeted.data?.data.budget?.period;
  const usage = await asAdmin.GET('/api/admin/v1/usage', { params: { query: { accountId } } });
  const usageOf: string | undefined = usage.data?.data.accountId;
  const revoked = await asAdmin.DELETE('/api/admin/v1/keys/{id}', { params: { path: { id: keyId } } });
  return {
    statuses: [
      account.response.status,
      key.response.status,
      budgeted.response.status,
      usage.response.status,
      revoked.response.status,
    ],
    budgetedPeriod,
    accountId,
    initialPassword,
    firstSignIn,
    usageOf,
  };
}
`;

/** What `CLIENT_PROGRAM` exports, as the test calls it once compiled. */
export interface Access {
  baseUrl: string;
  apiKey: string;
  adminToken: string;
  cookie: string;
  origin: string;
  email: string;
  password: string;
}

type Section<Result> = (create: typeof createClient, access: Access) => Promise<Result>;

export interface ClientProgram {
  discover: Section<{ status?: string; version?: string; server?: string; modelIds: string[]; oneId?: string }>;
  converse: Section<{
    statuses: number[];
    content: string | null;
    partsContent?: string | null;
    stream: string;
    battleAnswers: string[];
    battleId: string;
    replayStream: string;
    sessionStatus?: string;
    sessionIds: string[];
    cancelled?: boolean;
    leaderboardStatus?: string;
    fightStream: string;
    legacyContent?: string | null;
    responses: { statuses: number[]; outputTypes: string[]; continuedFrom?: string | null; deleted?: boolean };
    answers: { chat: unknown; response?: { id: string } };
  }>;
  look: Section<{
    resultUrls: string[];
    description?: string;
    vectors: (number[] | string)[];
    embeddingTokens?: number;
    themeName?: string;
    noThemeStatus: number;
    noThemeCode?: string;
    audioBytes: number;
    songSeconds?: number;
    taskId: string;
    jobStatus?: string;
  }>;
  dress: Section<{
    predictionId: string;
    runMeta?: string;
    predictionStatus?: string;
    outputs?: string[] | null;
    events: string;
  }>;
  manage: Section<{
    statuses: number[];
    refusedStatus: number;
    refusedCode?: string;
    expiresAt?: string;
    sessionEmail?: string;
    unchangedStatus: number;
    unchangedCode?: string;
    mfaStatuses: number[];
    mfaSecret?: string;
    loggedOutStatus: number;
    keyId: string;
    fullKey?: string;
    listedIds: string[];
    wasUpdated?: boolean;
    listedSpend?: number;
    providerKeyStatuses: number[];
    webhookSecretStatuses: number[];
    webhookSecretRotated: boolean;
    accountBudget: { statuses: number[]; limitUsd?: number; cleared?: unknown };
    maskedKeys: string[];
    totalRequests?: number;
    loggedRequests?: number;
    noContent: [number, string | undefined];
    answers: Record<'created' | 'listed' | 'updated' | 'usage' | 'requestLog', unknown>;
  }>;
  administer(
    create: typeof createClient,
    access: Access,
    email: string,
  ): Promise<{
    statuses: number[];
    accountId: string;
    initialPassword?: string;
    firstSignIn: { statuses: number[]; refusedCode?: string; signedInAs?: string };
    budgetedPeriod?: string;
    usageOf?: string;
  }>;
}
