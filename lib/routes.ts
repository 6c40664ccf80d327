/**
 * The route manifest: the only list of endpoints. The CDK stack builds API Gateway
 * routes and Lambda functions from it; the local runtime builds its HTTP server from it.
 * Data only (a helper fills in the usual values): no imports of handlers, no logic.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * How a caller may authenticate.
 * - `secretKey`: an `sk_` service key as `Authorization: Bearer` or `X-API-Key`.
 * - `publishableKey`: a `pk_` key, only from one of the key's allowed origins.
 * - `session`: the dashboard session cookie.
 * - `admin`: the admin token as `Authorization: Bearer`.
 */
export type AuthScheme = 'secretKey' | 'publishableKey' | 'session' | 'admin';

/** What a function may touch; the stack turns each grant into a least-privilege policy. */
export type Grant =
  | 'identity:read'
  | 'identity:write'
  /** Dashboard sessions only: put and delete items under `SESSION#` of the identity table. */
  | 'sessions:write'
  /** Any account's usage (the operator's route). */
  | 'usage:read'
  /** The caller's own usage, read under its tenant session (lib/constructs/tenant-access-role.ts). */
  | 'usage:readOwn'
  /**
   * The caller's own request log: its ledger entries, read under its tenant session; the role
   * holds no read of the usage table, only its name.
   */
  | 'requestLog:readOwn'
  /** The ledger's writer: PartiQL INSERT on ledger shards, SendMessage to the retry queue. */
  | 'usage:append'
  /** The caller's own provider keys, read under its tenant session. */
  | 'providerKeys:read'
  | 'providerKeys:create'
  | 'providerKeys:delete'
  /** Keeping requests' content for keys that opted in (`ACCOUNT#<id>#REQUEST#<request>` items of the jobs table). */
  | 'requestContent:write'
  /** A caller's own requests' content, read under its tenant session. */
  | 'requestContent:readOwn'
  /** Reading an account's webhook signing secrets (lambdas/store/webhook-secrets.ts). */
  | 'webhookSecrets:read'
  /** Making an account's first webhook secret. */
  | 'webhookSecrets:create'
  /** Replacing an account's webhook secret (a rotation). */
  | 'webhookSecrets:rotate'
  /** The rate limits' windows and leases: read and counted, `RATE#` items of the cache table only. */
  | 'rateLimits:count'
  /** Cached answers and image descriptions: `RESPONSE#` and `IMAGEDESC#` items of the cache table. */
  | 'answers:cache'
  /** Fashion submissions' idempotency keys (`Idempotency-Key`): `IDEMPOTENCY#` items of the cache table. */
  | 'idempotency:write'
  /** Sign-in state: the throttle's counters and pending authenticator set-ups (`LOGIN#`, `MFASETUP#` items of the cache table). */
  | 'signIns:write'
  /** The arena's session log and records (jobs table): conditional puts and updates. */
  | 'arenaSessions:write'
  /** Reading any account's session logs (`ACCOUNT#<id>#ARENA_SESSION#<session>`): the session runner's, which acts for no caller. */
  | 'arenaSessions:read'
  /** The caller's own session logs, records and leaderboards, read under its tenant session. */
  | 'arenaSessions:readOwn'
  /** Stored Responses (`ACCOUNT#<id>#RESPONSE#<response>` items of the jobs table): conditional puts. */
  | 'responses:write'
  /** The caller's own stored Responses, read under its tenant session. */
  | 'responses:readOwn'
  /** Deleting stored Responses (`ACCOUNT#<id>#RESPONSE#<response>` items only); the key names the caller's account. */
  | 'responses:delete'
  /** Starting a session's runner execution (lambdas/arena/session-continuation.ts). */
  | 'arenaSessions:run'
  /**
   * Budgets' counters (`BUDGET#` items of the identity table): reservations before upstream calls and their
   * settlements; and SendMessage on the budget notice queue, for the crossings a settlement finds.
   */
  | 'budgets:reserve'
  /** Reading budgets' counters (a key list's spend against its budget). */
  | 'budgets:read'
  /** Reading any account's job records (`ACCOUNT#<id>#JOB#<job>`): the job poller's tasks, which act for no caller. */
  | 'jobs:read'
  /** The caller's own job records, read under its tenant session. */
  | 'jobs:readOwn'
  /** Creating and moving job records (`ACCOUNT#<id>#JOB#<job>`): conditional puts and updates. */
  | 'jobs:write'
  | 'jobs:start'
  | 'adminToken:read'
  /**
   * The console distribution's edge secret, which proves the viewer address it sends
   * (lambdas/identity/viewer-address.ts): the per-address sign-in throttle's. Grants nothing
   * without the distribution.
   */
  | 'edgeSecret:read'
  | 'platformKeys:read'
  | 'promptService:read'
  | 'themesProvider:read'
  | 'guardrails:apply'
  /**
   * Calling Amazon Bedrock's models with the function's role (the `bedrock` chat provider):
   * InvokeModel and InvokeModelWithResponseStream on foundation models and this account's
   * inference profiles in the stack's region.
   */
  | 'bedrock:invoke'
  /**
   * Password sign-in by the admin flow (IAM-signed) and answering its challenges (new password,
   * authenticator code, authenticator set-up).
   */
  | 'userPool:login'
  | 'userPool:admin';

/** Gateway and model routes answer errors in the OpenAI shape; the rest use the envelope. */
export type ErrorStyle = 'openai' | 'envelope';

/** A route's own limit per API key, in place of the key's requests-per-minute. */
export interface RouteLimit {
  readonly requests: number;
  readonly windowSeconds: number;
}

export interface RouteSpec {
  /** Stable id; also the stem of the Lambda function's logical id. */
  readonly id: string;
  readonly method: HttpMethod;
  /**
   * API Gateway path template, `{name}` for path parameters; a last `{name+}` (greedy) takes the
   * rest of the path, slashes included.
   */
  readonly path: string;
  /** Handler entry file, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Accepted schemes; empty means no authentication. */
  readonly auth: readonly AuthScheme[];
  /** Counts against the caller's per-key rate limit (and sends the rate headers). */
  readonly rateLimited: boolean;
  /**
   * With `rateLimited`: the route's own window per key (counted apart from the key's other
   * requests) instead of the key's `rateLimit` per minute. @default - the key's own limit
   */
  readonly perKeyLimit?: RouteLimit;
  /** Response streaming: API Gateway STREAM integration and a function URL. */
  readonly streaming: boolean;
  /**
   * The function's timeout. Buffered routes answer within API Gateway's 29 s integration
   * timeout, so at most MAX_BUFFERED_FUNCTION_TIMEOUT_SECONDS (lib/constructs/public-api.ts).
   */
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly errorStyle: ErrorStyle;
  /**
   * Every JSON answer, errors included, also carries `meta {requestId, timestamp}` (docs/interface.md §2.14:
   * fashion). @default false
   */
  readonly envelopeMeta?: boolean;
  readonly grants: readonly Grant[];
}

const API_KEY_AUTH = ['secretKey'] as const satisfies readonly AuthScheme[];
const KEY_READS: readonly Grant[] = ['identity:read', 'rateLimits:count'];

type RouteFields = Pick<RouteSpec, 'id' | 'method' | 'path' | 'auth' | 'grants'> & Partial<RouteSpec>;

/**
 * A manifest entry with the usual values filled in: a small buffered JSON function of its own,
 * `lambdas/handlers/<id>.ts`, answering in the `success` envelope, not rate limited. Only what
 * differs is written below, so each entry reads as what is special about it.
 */
const route = <const Fields extends RouteFields>(fields: Fields): RouteSpec & Pick<Fields, 'id' | 'auth'> => ({
  entry: `lambdas/handlers/${fields.id}.ts`,
  rateLimited: false,
  streaming: false,
  timeoutSeconds: 10,
  memoryMb: 256,
  errorStyle: 'envelope',
  ...fields,
});

/** What the chat upstream calls need: keys, the ledger, prompts and guardrails (legacy chat mode). */
const CHAT_GRANTS: readonly Grant[] = [
  ...KEY_READS,
  'requestContent:write',
  'answers:cache',
  'usage:append',
  'platformKeys:read',
  'providerKeys:read',
  'promptService:read',
  'guardrails:apply',
  'budgets:reserve',
  'bedrock:invoke',
];

/**
 * Routes that call the chat upstreams outside the chat core (embeddings, image analysis): the
 * caller's own provider keys first, else the platform's; the answers cache; the ledger; budgets.
 */
const MODEL_CALL_GRANTS: readonly Grant[] = [
  ...KEY_READS,
  'answers:cache',
  'usage:append',
  'platformKeys:read',
  'providerKeys:read',
  'budgets:reserve',
];

/**
 * The chat core's calls for the Responses API: CHAT_GRANTS but the prompt service's, since the
 * Responses request has no managed prompts (model calls with guardrails, Bedrock's among them).
 */
const RESPONSES_CHAT_GRANTS: readonly Grant[] = [
  ...MODEL_CALL_GRANTS,
  'guardrails:apply',
  'bedrock:invoke',
  'requestContent:write',
];

/**
 * Battle, fight and the legacy route: long streams of up to eight agents over ten rounds, so
 * the longest timeout API Gateway's streaming integration allows, and CPU for eight streams.
 * Errors in the envelope (docs/interface.md §7's codes; battle and fight bodies are not OpenAI-shaped).
 */
const CHAT_MODE = {
  auth: ['secretKey', 'publishableKey'],
  rateLimited: true,
  streaming: true,
  timeoutSeconds: 900,
  // A fight's measured CPU and memory (lib/stream-sizing.ts): 13% of 512 MB's CPU share on average.
  memoryMb: 512,
  errorStyle: 'envelope',
  grants: [...CHAT_GRANTS, 'arenaSessions:write', 'arenaSessions:run'],
} as const satisfies Partial<RouteSpec>;

/**
 * A session after its start (lambdas/arena/sessions-call.ts): the keys that may start one may
 * read it again, publishable keys from browsers included.
 */
const SESSION_READ = {
  auth: ['secretKey', 'publishableKey'],
  rateLimited: true,
  grants: [...KEY_READS, 'arenaSessions:readOwn'],
} as const satisfies Partial<RouteSpec>;

/**
 * Routes that submit a long upstream job: the platform's provider key, the job record and the
 * poller execution (lambdas/jobs/start-job.ts).
 */
const JOB_SUBMIT_GRANTS: readonly Grant[] = [
  ...KEY_READS,
  'platformKeys:read',
  'jobs:write',
  'jobs:start',
  // The submission reserves the job's greatest cost against the key's budget (and gives it back
  // when the upstream refuses); fashion subscribe also settles the jobs it sees end.
  'budgets:reserve',
];

/** Fashion routes: secret keys, a limit of each route's own, `meta` on every JSON answer. */
const FASHION = {
  auth: API_KEY_AUTH,
  rateLimited: true,
  envelopeMeta: true,
} as const satisfies Partial<RouteSpec>;

export const routes = [
  route({ id: 'health', method: 'GET', path: '/api/health', auth: [], grants: ['platformKeys:read'] }),
  // The OpenAPI document of the whole interface (lambdas/openapi/): public, as health is.
  route({ id: 'openapi-get', method: 'GET', path: '/api/v1/openapi.json', auth: [], grants: [] }),
  route({
    id: 'models-list',
    method: 'GET',
    path: '/api/v1/models',
    auth: API_KEY_AUTH,
    rateLimited: true,
    errorStyle: 'openai',
    grants: KEY_READS,
  }),
  // One model object by any name chat takes (OpenAI SDKs' `models.retrieve`); catalog data only.
  // Greedy: five families' model ids hold a `/`, which API Gateway decodes from an SDK's `%2F`.
  route({
    id: 'models-get',
    method: 'GET',
    path: '/api/v1/models/{id+}',
    auth: API_KEY_AUTH,
    rateLimited: true,
    errorStyle: 'openai',
    grants: KEY_READS,
  }),
  // Streaming for every request: SSE when `stream` is true, and for JSON answers the usage
  // writes still happen after the last byte instead of delaying it.
  route({
    id: 'chat-completions',
    method: 'POST',
    path: '/api/v1/chat/completions',
    auth: API_KEY_AUTH,
    rateLimited: true,
    streaming: true,
    timeoutSeconds: 900,
    // Sized from a 20 s stream's measured CPU and memory (lib/stream-sizing.ts): $58 of compute a
    // million 20 s streams instead of $267 at 1,024 MB, the first byte about 4 to 10 ms later.
    memoryMb: 224,
    errorStyle: 'openai',
    grants: CHAT_GRANTS,
  }),
  // OpenAI's Responses API over the chat core (docs/interface.md §4.13): chat completions' sizing and
  // grants but the prompt service's (it takes no prompt_id), plus the stored responses (written by
  // the role, read back under the tenant session).
  route({
    id: 'responses-create',
    method: 'POST',
    path: '/api/v1/responses',
    auth: API_KEY_AUTH,
    rateLimited: true,
    streaming: true,
    timeoutSeconds: 900,
    memoryMb: 224,
    errorStyle: 'openai',
    grants: [...RESPONSES_CHAT_GRANTS, 'responses:write', 'responses:readOwn'],
  }),
  route({
    id: 'responses-get',
    method: 'GET',
    path: '/api/v1/responses/{id}',
    auth: API_KEY_AUTH,
    rateLimited: true,
    errorStyle: 'openai',
    grants: [...KEY_READS, 'responses:readOwn'],
  }),
  route({
    id: 'responses-delete',
    method: 'DELETE',
    path: '/api/v1/responses/{id}',
    auth: API_KEY_AUTH,
    rateLimited: true,
    errorStyle: 'openai',
    grants: [...KEY_READS, 'responses:delete'],
  }),
  // The chat modes: secret keys, and publishable keys from their allowed origins (browsers).
  route({
    id: 'battle',
    method: 'POST',
    path: '/api/v1/battle',
    ...CHAT_MODE,
  }),
  route({
    id: 'fight',
    method: 'POST',
    path: '/api/v1/fight',
    ...CHAT_MODE,
  }),
  // A session's events again, from any point, following it while it runs: a stream as long as
  // the chat modes' own.
  route({
    id: 'sessions-events',
    method: 'GET',
    path: '/api/v1/sessions/{id}/events',
    ...SESSION_READ,
    streaming: true,
    timeoutSeconds: 900,
  }),
  route({
    id: 'sessions-get',
    method: 'GET',
    path: '/api/v1/sessions/{id}',
    ...SESSION_READ,
  }),
  route({
    id: 'sessions-list',
    method: 'GET',
    path: '/api/v1/sessions',
    ...SESSION_READ,
  }),
  route({
    id: 'sessions-cancel',
    method: 'POST',
    path: '/api/v1/sessions/{id}/cancel',
    ...SESSION_READ,
    grants: [...SESSION_READ.grants, 'arenaSessions:write'],
  }),
  // The account's leaderboard from its fights' votes. Streaming so that a fit it starts runs
  // after the last byte (lambdas/arena/leaderboard-call.ts), not before the answer.
  route({
    id: 'arena-leaderboard',
    method: 'GET',
    path: '/api/v1/arena/leaderboard',
    ...SESSION_READ,
    grants: [...SESSION_READ.grants, 'arenaSessions:write'],
    streaming: true,
    timeoutSeconds: 900,
    memoryMb: 1024,
  }),
  // Legacy and deprecated (docs/interface.md §9.3): `mode` picks chat, battle or fight.
  route({
    id: 'chat-legacy',
    method: 'POST',
    path: '/api/chat',
    ...CHAT_MODE,
  }),
  // Embeddings (docs/interface.md §4.12): secret keys only (a browser's key could spend the budget on
  // bulk work); the chat upstreams' keys (the caller's own first), the answers cache, the ledger and
  // the key's budget. Buffered: the answer is bounded to fit Lambda's 6 MB.
  route({
    id: 'embeddings',
    method: 'POST',
    path: '/api/v1/embeddings',
    auth: API_KEY_AUTH,
    rateLimited: true,
    timeoutSeconds: 25,
    memoryMb: 1024,
    errorStyle: 'openai',
    grants: MODEL_CALL_GRANTS,
  }),
  // Web search through the platform's search provider key (the platform keys secret's `exa`).
  route({
    id: 'search',
    method: 'POST',
    path: '/api/v1/search',
    auth: API_KEY_AUTH,
    rateLimited: true,
    timeoutSeconds: 25,
    grants: [...KEY_READS, 'usage:append', 'platformKeys:read', 'budgets:reserve'],
  }),
  // Image analysis (docs/interface.md §4.11): one image described by a vision model through the chat
  // router, so the chat upstreams' keys (the caller's own first), the ledger and the description cache.
  route({
    id: 'images-analyze',
    method: 'POST',
    path: '/api/v1/images/analyze',
    auth: API_KEY_AUTH,
    rateLimited: true,
    timeoutSeconds: 25,
    memoryMb: 512,
    grants: [...MODEL_CALL_GRANTS, 'bedrock:invoke'],
  }),
  // Speech and music through the platform's MiniMax key (the platform keys secret's `minimax`).
  // Both stream: audio as it is synthesized, and a song's JSON after minutes of generation
  // (beyond API Gateway's 29 s buffered limit), kept alive by leading whitespace.
  route({
    id: 'media-speech',
    method: 'POST',
    path: '/api/v1/media/speech',
    auth: API_KEY_AUTH,
    rateLimited: true,
    streaming: true,
    timeoutSeconds: 900,
    memoryMb: 512,
    grants: [...KEY_READS, 'usage:append', 'platformKeys:read', 'budgets:reserve'],
  }),
  route({
    id: 'media-music',
    method: 'POST',
    path: '/api/v1/media/music',
    auth: API_KEY_AUTH,
    rateLimited: true,
    streaming: true,
    timeoutSeconds: 900,
    grants: [...KEY_READS, 'usage:append', 'platformKeys:read', 'budgets:reserve'],
  }),
  // Video jobs through MiniMax: the submit starts a job poller execution (lambdas/jobs/); the
  // status route reads the job record and hands out a working download link.
  route({
    id: 'media-video',
    method: 'POST',
    path: '/api/v1/media/video',
    auth: API_KEY_AUTH,
    rateLimited: true,
    timeoutSeconds: 25,
    grants: [...JOB_SUBMIT_GRANTS],
  }),
  route({
    id: 'media-video-status',
    method: 'GET',
    path: '/api/v1/media/video/status',
    auth: API_KEY_AUTH,
    rateLimited: true,
    timeoutSeconds: 15,
    grants: [...KEY_READS, 'jobs:readOwn', 'jobs:write', 'platformKeys:read'],
  }),
  // Fashion predictions through FASHN, on the same job platform. docs/interface.md §8 gives these routes
  // limits of their own per key (run and subscribe each 30 per 60 s, status 40 per 10 s), and
  // every JSON answer carries `meta` (docs/interface.md §2.14).
  route({
    id: 'fashion-run',
    method: 'POST',
    path: '/api/v1/fashion/run',
    ...FASHION,
    perKeyLimit: { requests: 30, windowSeconds: 60 },
    timeoutSeconds: 25,
    // Idempotency-Key: a repeated submission answers the first one's prediction.
    grants: [...JOB_SUBMIT_GRANTS, 'idempotency:write'],
  }),
  route({
    id: 'fashion-status',
    method: 'GET',
    path: '/api/v1/fashion/status/{id}',
    ...FASHION,
    perKeyLimit: { requests: 40, windowSeconds: 10 },
    timeoutSeconds: 15,
    grants: [...KEY_READS, 'jobs:readOwn', 'platformKeys:read'],
  }),
  // Streams the prediction's progress for at most 2 minutes (docs/interface.md §8), then tells the caller to
  // poll; the job poller carries on either way, and meters the prediction once.
  route({
    id: 'fashion-subscribe',
    method: 'POST',
    path: '/api/v1/fashion/subscribe',
    ...FASHION,
    perKeyLimit: { requests: 30, windowSeconds: 60 },
    streaming: true,
    timeoutSeconds: 180,
    grants: [...JOB_SUBMIT_GRANTS, 'idempotency:write', 'jobs:readOwn', 'usage:append'],
  }),
  // Design systems from the configured theme provider, else the embedded catalog (docs/interface.md §4.5).
  route({
    id: 'themes-get',
    method: 'GET',
    path: '/api/v1/themes',
    auth: API_KEY_AUTH,
    rateLimited: true,
    timeoutSeconds: 15,
    grants: [...KEY_READS, 'themesProvider:read'],
  }),
  route({
    id: 'auth-login',
    method: 'POST',
    path: '/api/v1/auth/login',
    auth: [],
    // The sign-in throttle's counters (lambdas/identity/login-throttle.ts) and, where MFA is
    // required, the pending set-up a first sign-in begins (lambdas/store/mfa-setups.ts).
    grants: ['identity:read', 'sessions:write', 'signIns:write', 'edgeSecret:read', 'userPool:login'],
  }),
  // A signed-in user's own change of password: checked and throttled as a sign-in, it ends every
  // session of the account and answers a new one.
  route({
    id: 'auth-password',
    method: 'POST',
    path: '/api/v1/auth/password',
    auth: ['session'],
    grants: ['identity:read', 'sessions:write', 'signIns:write', 'edgeSecret:read', 'userPool:login'],
  }),
  // The signed-in user's authenticator (TOTP MFA): POST begins a set-up or confirms it, DELETE
  // turns it off; each a sign-in attempt for the throttle.
  route({
    id: 'auth-mfa',
    method: 'POST',
    path: '/api/v1/auth/mfa',
    auth: ['session'],
    grants: ['identity:read', 'signIns:write', 'edgeSecret:read', 'userPool:login'],
  }),
  route({
    id: 'auth-mfa-delete',
    method: 'DELETE',
    path: '/api/v1/auth/mfa',
    auth: ['session'],
    grants: ['identity:read', 'signIns:write', 'edgeSecret:read', 'userPool:login'],
  }),
  route({
    id: 'auth-logout',
    method: 'POST',
    path: '/api/v1/auth/logout',
    auth: ['session'],
    grants: ['identity:read', 'sessions:write'],
  }),
  route({
    id: 'auth-session',
    method: 'GET',
    path: '/api/v1/auth/session',
    auth: ['session'],
    grants: ['identity:read'],
  }),
  route({
    id: 'keys-create',
    method: 'POST',
    path: '/api/v1/keys',
    auth: ['session'],
    grants: ['adminToken:read', 'identity:read', 'identity:write'],
  }),
  route({
    id: 'keys-list',
    method: 'GET',
    path: '/api/v1/keys',
    auth: ['session'],
    grants: ['adminToken:read', 'identity:read', 'budgets:read'],
  }),
  route({
    id: 'keys-update',
    method: 'PATCH',
    path: '/api/v1/keys/{id}',
    auth: ['session'],
    grants: ['adminToken:read', 'identity:read', 'identity:write', 'budgets:read'],
  }),
  route({
    id: 'keys-delete',
    method: 'DELETE',
    path: '/api/v1/keys/{id}',
    auth: ['session'],
    grants: ['adminToken:read', 'identity:read', 'identity:write'],
  }),
  route({
    id: 'provider-keys-create',
    method: 'POST',
    path: '/api/v1/provider-keys',
    auth: ['session'],
    timeoutSeconds: 15,
    grants: ['identity:read', 'identity:write', 'providerKeys:create'],
  }),
  route({
    id: 'provider-keys-list',
    method: 'GET',
    path: '/api/v1/provider-keys',
    auth: ['session'],
    grants: ['identity:read'],
  }),
  route({
    id: 'provider-keys-delete',
    method: 'DELETE',
    path: '/api/v1/provider-keys/{id}',
    auth: ['session'],
    timeoutSeconds: 15,
    grants: ['identity:read', 'identity:write', 'providerKeys:delete'],
  }),
  route({
    id: 'webhooks-secret-get',
    method: 'GET',
    path: '/api/v1/webhooks/secret',
    auth: ['session'],
    timeoutSeconds: 15,
    grants: ['identity:read', 'webhookSecrets:read', 'webhookSecrets:create'],
  }),
  route({
    id: 'webhooks-secret-rotate',
    method: 'POST',
    path: '/api/v1/webhooks/secret/rotate',
    auth: ['session'],
    timeoutSeconds: 15,
    grants: ['identity:read', 'webhookSecrets:read', 'webhookSecrets:create', 'webhookSecrets:rotate'],
  }),
  // The account's budget over all its keys and sessions (lambdas/identity/account-budget.ts).
  route({
    id: 'account-budget-get',
    method: 'GET',
    path: '/api/v1/budget',
    auth: ['secretKey', 'session'],
    rateLimited: true,
    grants: [...KEY_READS, 'budgets:read'],
  }),
  route({
    id: 'account-budget-set',
    method: 'PATCH',
    path: '/api/v1/budget',
    auth: ['session'],
    grants: ['adminToken:read', 'identity:read', 'identity:write', 'budgets:read'],
  }),
  route({
    id: 'usage-get',
    method: 'GET',
    path: '/api/v1/usage',
    auth: ['secretKey', 'session'],
    rateLimited: true,
    timeoutSeconds: 15,
    grants: [...KEY_READS, 'usage:readOwn'],
  }),
  // The request log (lambdas/usage/request-log.ts): the caller's ledger, a page at a time.
  route({
    id: 'requests-list',
    method: 'GET',
    path: '/api/v1/requests',
    auth: ['secretKey', 'session'],
    rateLimited: true,
    timeoutSeconds: 15,
    grants: [...KEY_READS, 'requestLog:readOwn'],
  }),
  // A request's prompt and answer, kept for keys that opted in (lambdas/store/request-contents.ts).
  route({
    id: 'requests-get',
    method: 'GET',
    path: '/api/v1/requests/{id}',
    auth: ['secretKey', 'session'],
    rateLimited: true,
    grants: [...KEY_READS, 'requestContent:readOwn'],
  }),
  route({
    id: 'admin-accounts-create',
    method: 'POST',
    path: '/api/admin/v1/accounts',
    auth: ['admin'],
    timeoutSeconds: 15,
    grants: ['adminToken:read', 'identity:read', 'identity:write', 'userPool:admin'],
  }),
  route({
    id: 'admin-accounts-update',
    method: 'PATCH',
    path: '/api/admin/v1/accounts/{id}',
    auth: ['admin'],
    grants: ['adminToken:read', 'identity:read', 'identity:write', 'budgets:read'],
  }),
  route({
    id: 'admin-keys-create',
    method: 'POST',
    path: '/api/admin/v1/keys',
    auth: ['admin'],
    grants: ['adminToken:read', 'identity:read', 'identity:write'],
  }),
  route({
    id: 'admin-keys-delete',
    method: 'DELETE',
    path: '/api/admin/v1/keys/{id}',
    auth: ['admin'],
    grants: ['adminToken:read', 'identity:read', 'identity:write'],
  }),
  route({
    id: 'admin-usage-get',
    method: 'GET',
    path: '/api/admin/v1/usage',
    auth: ['admin'],
    timeoutSeconds: 15,
    grants: ['adminToken:read', 'identity:read', 'usage:read'],
  }),
] as const satisfies readonly RouteSpec[];

/** A route of the manifest, by id. */
export type RouteId = (typeof routes)[number]['id'];

/** The schemes a manifest route accepts, as written in its entry. */
export type RouteAuth<Id extends RouteId> = Extract<(typeof routes)[number], { readonly id: Id }>['auth'];
