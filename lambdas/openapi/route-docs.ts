import { ARENA_ERROR_ANSWERS } from '../arena/arena-errors.js';
import { legacyChatRequestSchema, arenaRequestSchema } from '../arena/arena-request.js';
import { chatCompletionsBodySchema } from '../arena/chat-completions-body.js';
import { CHAT_ERROR_ANSWERS } from '../chat/chat-errors.js';
import { imageAnalysisSchema } from '../chat/image-analysis-request.js';
import {
  CHANGE_PASSWORD_BODY,
  CREATE_ACCOUNT_BODY,
  LOGIN_BODY,
  MFA_DISABLE_BODY,
  MFA_SETUP_BODY,
} from '../identity/account-schemas.js';
import { LOGIN_LIMITS, MFA_SETUP_VALIDITY_MS } from '../identity/login-limits.js';
import { ADMIN_CREATE_KEY_BODY, CREATE_KEY_BODY, UPDATE_KEY_BODY } from '../identity/key-schemas.js';
import { ACCOUNT_BUDGET_BODY } from '../identity/account-budget.js';
import { CREATE_PROVIDER_KEY_BODY } from '../identity/provider-key-schemas.js';
import { SIGN_IN_ERROR_ANSWERS } from '../identity/sign-in.js';
import { MAX_WATCHERS_PER_JOB } from '../jobs/job-watchers.js';
import { MEDIA_ERROR_ANSWERS, VIDEO_TASK_NOT_FOUND } from '../media/media-errors.js';
import { musicRequestSchema } from '../media/music-request.js';
import { speechRequestSchema } from '../media/speech-request.js';
import { videoRequestSchema } from '../media/video-request.js';
import { FASHION_ERROR_ANSWERS } from '../fashion/fashion-errors.js';
import { fashionRequestSchema } from '../fashion/fashion-schema.js';
import { EMAIL_TAKEN_ANSWERS } from '../store/accounts.js';
import { IDEMPOTENCY_ERROR_ANSWERS, MAX_IDEMPOTENCY_KEY_CHARS } from '../store/idempotency.js';
import { EMBEDDINGS_ERROR_ANSWERS } from '../embeddings/embeddings-errors.js';
import { embeddingsRequestSchema } from '../embeddings/embeddings-request.js';
import { SEARCH_ERROR_ANSWERS } from '../search/search-errors.js';
import { searchRequestSchema } from '../search/search-request.js';
import { RESPONSES_ERROR_ANSWERS } from '../responses/responses-errors.js';
import { responsesRequestSchema } from '../responses/responses-request.js';
import { THEME_ERROR_ANSWERS } from '../themes/theme-errors.js';
import { THEME_PLATFORMS } from '../themes/theme-types.js';
import {
  ARENA_STREAM_FRAMING,
  CHAT_STREAM_FRAMING,
  FASHION_STREAM_FRAMING,
  RESPONSES_STREAM_FRAMING,
} from './event-schemas.js';
import type { JsonSchema } from './json-schema-2020.js';
import { enveloped, ref } from './schema-ref.js';

/**
 * What the OpenAPI document says about each route beyond the manifest (lib/routes.ts), keyed
 * by route id. The manifest gives the path, method, security, rate headers and error shape;
 * an entry here gives the words, the request body (the very schema object the handler compiles),
 * the query and header parameters, the success answer, and the tables of the domain errors the
 * route's feature throws (each domain's `*-errors.ts`), whose every status is documented with its
 * codes. Adding a route's docs is one entry:
 *
 *   'media-speech': {
 *     tag: 'Media',
 *     summary: 'Text to speech',
 *     request: { name: 'SpeechRequest', schema: speechRequestSchema },
 *     success: { status: 200, description: 'The audio', binary: ['audio/mpeg', 'audio/wav'] },
 *   },
 *
 * test/unit/openapi/document.test.ts names every manifest route without an entry.
 */

export interface ParameterDoc {
  readonly name: string;
  readonly in: 'query' | 'header';
  readonly description: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

export interface SuccessDoc {
  readonly status: 200 | 201 | 202 | 204;
  readonly description: string;
  /** An `application/json` answer. */
  readonly json?: JsonSchema;
  /** A `text/event-stream` answer: the schema of one event's `data` (the framing is in the description). */
  readonly events?: JsonSchema;
  /** Binary answers: their content types. */
  readonly binary?: readonly string[];
  /** Response headers beyond X-Request-ID and the rate headers (names in RESPONSE_HEADERS). */
  readonly headers?: readonly string[];
}

export interface RouteDoc {
  /** One of TAGS. */
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly deprecated?: true;
  /** The request body: a name for components.schemas, and the schema the handler validates with. */
  readonly request?: { readonly name: string; readonly schema: JsonSchema };
  readonly parameters?: readonly ParameterDoc[];
  /** Descriptions of the path's `{name}` parameters. */
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly success: SuccessDoc;
  /** Other successful answers (a 202 while a result is being computed). */
  readonly alsoSucceeds?: readonly SuccessDoc[];
  /**
   * The tables of the domain errors the route's feature throws (errors/domain-error.ts
   * `ErrorAnswers`): each status they answer is documented, naming the codes.
   */
  readonly raises?: readonly ErrorTable[];
  /**
   * Words for error statuses particular to the route, beyond those the manifest implies (400,
   * 401, 403, 404, 413, 429) and those its tables raise; a status named here too takes these words.
   */
  readonly errors?: Readonly<Record<number, string>>;
}

/** A domain's table of answers (errors/domain-error.ts `ErrorAnswers`), as far as the document reads it. */
export type ErrorTable = Readonly<Record<string, { readonly status: number; readonly code: string }>>;

export const TAGS: Readonly<Record<string, string>> = {
  Health: 'Service status, unauthenticated',
  Documentation: 'This document',
  Gateway: 'OpenAI-compatible chat completions, responses, embeddings and the model list',
  'Chat modes': 'Battle, fight and multi-instance sessions (docs/interface.md §4.3)',
  Search: 'Web search through the platform’s search provider',
  Images: 'Image analysis by a vision model (docs/interface.md §4.11)',
  Themes: 'Design systems (docs/interface.md §4.5)',
  Media: 'Speech, music and video generation (docs/interface.md §4.9)',
  Fashion: 'Fashion image and video predictions (docs/interface.md §4.10)',
  Dashboard: 'Dashboard sign-in, service API keys and provider keys (session cookie)',
  Usage: 'Usage and estimated cost',
  Admin: 'Partner provisioning with the admin token',
};

const query = (name: string, description: string, schema: JsonSchema = { type: 'string' }): ParameterDoc => ({
  name,
  in: 'query',
  description,
  schema,
});
const requestHeader = (name: string, description: string, schema: JsonSchema): ParameterDoc => ({
  name,
  in: 'header',
  description,
  schema,
});

const PERIOD: readonly ParameterDoc[] = [
  query(
    'from',
    'ISO 8601 date (whole UTC day) or date-time (from the start of its UTC hour: usage is totalled by the hour); default 30 days before `to`',
  ),
  query(
    'to',
    'ISO 8601 date (inclusive) or date-time (to the end of its UTC hour); default now; at most 400 days after `from`',
  ),
  query('keyId', 'Only this API key’s usage (a revoked key’s too); `none`: usage made without a key'),
];

const CHAT_HEADERS: readonly ParameterDoc[] = [
  requestHeader('X-Cache', '`no-cache` skips the cache read', { enum: ['no-cache'] }),
  requestHeader('X-Cache-TTL', 'Seconds a non-streaming answer is cached (default 3600)', {
    type: 'integer',
    minimum: 1,
    maximum: 86400,
  }),
  requestHeader('X-Guardrails', 'Comma-separated `pii`, `content_moderation`, `schema_validation`', {
    type: 'string',
  }),
];
const CHAT_ANSWER_HEADERS = ['X-Model-Used', 'X-Retry-Count', 'X-Fallback-From', 'X-Cache', 'X-Guardrail-Status'];

const KEY_ID = { id: 'The key id (`keyId`)' };

const IDEMPOTENCY_KEY = requestHeader(
  'Idempotency-Key',
  'A repeat within 24 hours with the same key and body answers the first prediction (no new upstream run); ' +
    'the same key with another body is 422 `IDEMPOTENCY_KEY_REUSED`; one still being submitted is 409 `CONFLICT`.',
  { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_CHARS, pattern: '^[\\x21-\\x7e]+$' },
);

/**
 * The chat core's failures that reach a caller as a status: `upstream_stream_failed` only ever
 * ends a stream already answered 200 (as its last event).
 */
const { upstream_stream_failed: _endsAStream, ...CHAT_STATUS_ERRORS } = CHAT_ERROR_ANSWERS;

const FASHION_ERRORS = {
  404: 'No such prediction of this account (`NOT_FOUND`)',
  409: 'A request with this Idempotency-Key is still being submitted (`CONFLICT`; `Retry-After`)',
  422: 'The Idempotency-Key was used with another body (`IDEMPOTENCY_KEY_REUSED`)',
  503: 'FASHN is not configured, out of credits or failed (`SERVICE_UNAVAILABLE`)',
};

/** The session routes: the chat modes' tag, and the arena's errors (a session of another account is 404). */
const SESSION_ROUTE = { tag: 'Chat modes', raises: [ARENA_ERROR_ANSWERS] } as const;

export const routeDocs: Readonly<Record<string, RouteDoc>> = {
  health: {
    tag: 'Health',
    summary: 'Service status',
    description: 'A family is `up` when one of its routes has a configured provider; overall `healthy` when any is.',
    success: { status: 200, description: 'The status', json: enveloped(ref('Health')) },
  },
  'openapi-get': {
    tag: 'Documentation',
    summary: 'This OpenAPI document',
    success: { status: 200, description: 'The OpenAPI 3.1 document', json: ref('OpenApiDocument') },
  },
  'models-list': {
    tag: 'Gateway',
    summary: 'List models',
    success: { status: 200, description: 'The model families (docs/interface.md §2.4)', json: ref('ModelList') },
  },
  'models-get': {
    tag: 'Gateway',
    summary: 'Retrieve a model',
    description:
      'Any name chat completions takes as `model` (an alias in any case, or a concrete model id) answers its ' +
      'family’s entry of the list, whose `id` is the family’s default model.',
    pathParameters: { id: 'A model id or alias; the `/` many model ids hold may be sent as it is or encoded' },
    success: { status: 200, description: 'The model (docs/interface.md §2.4)', json: ref('Model') },
    errors: { 404: 'No model of that name (`model_not_found`, as OpenAI answers)' },
  },
  'chat-completions': {
    tag: 'Gateway',
    summary: 'Chat completion',
    description:
      'docs/interface.md §2.2: the OpenAI request plus fallback, retries, timeout, load balancing, guardrails ' +
      'and prompt templates. Also takes the chat modes’ ChatRequest (a body with `message`: §4.3, defaults ' +
      'included, `stream` true), as the deprecated POST /api/chat takes it in `chat` mode (§9.3).',
    request: { name: 'ChatCompletionRequest', schema: chatCompletionsBodySchema },
    parameters: CHAT_HEADERS,
    success: {
      status: 200,
      description: `The completion as JSON, or with \`stream: true\` a stream. ${CHAT_STREAM_FRAMING}`,
      json: ref('ChatCompletion'),
      events: ref('ChatCompletionChunk'),
      headers: CHAT_ANSWER_HEADERS,
    },
    raises: [CHAT_STATUS_ERRORS],
    errors: { 503: 'Every target failed, or a service the request needs did not answer (`SERVICE_UNAVAILABLE`)' },
  },
  'responses-create': {
    tag: 'Gateway',
    summary: 'Create a response (OpenAI’s Responses API)',
    description:
      'docs/interface.md §4.13: OpenAI’s Responses request, run by the chat core as chat completions are ' +
      '(routing, fallback, cache, guardrails, provider keys, budgets, metering): text and image input, ' +
      'instructions, function tools and their outputs, `previous_response_id`. Kept 30 days unless `store` ' +
      'is false. Built-in tools, file ids and background responses are refused.',
    request: { name: 'ResponsesRequest', schema: responsesRequestSchema },
    parameters: CHAT_HEADERS,
    success: {
      status: 200,
      description: `The Response as JSON, or with \`stream: true\` its events. ${RESPONSES_STREAM_FRAMING}`,
      json: ref('Response'),
      events: ref('ResponseEvent'),
      headers: CHAT_ANSWER_HEADERS,
    },
    raises: [CHAT_STATUS_ERRORS, RESPONSES_ERROR_ANSWERS],
    errors: { 503: 'Every target failed, or a service the request needs did not answer (`SERVICE_UNAVAILABLE`)' },
  },
  'responses-get': {
    tag: 'Gateway',
    summary: 'Retrieve a stored response',
    pathParameters: { id: 'The response id (`resp_…`)' },
    success: { status: 200, description: 'The Response as it was answered', json: ref('Response') },
    raises: [RESPONSES_ERROR_ANSWERS],
    errors: { 404: 'No stored response of this account with that id (`NOT_FOUND`)' },
  },
  'responses-delete': {
    tag: 'Gateway',
    summary: 'Delete a stored response',
    pathParameters: { id: 'The response id (`resp_…`)' },
    success: { status: 200, description: 'The deletion', json: ref('ResponseDeleted') },
    raises: [RESPONSES_ERROR_ANSWERS],
    errors: { 404: 'No stored response of this account with that id (`NOT_FOUND`)' },
  },
  battle: {
    tag: 'Chat modes',
    summary: 'Battle: two models side by side',
    request: { name: 'ChatModeRequest', schema: arenaRequestSchema },
    success: {
      status: 200,
      description: `A stream (default), or with \`stream: false\` the battle response. ${ARENA_STREAM_FRAMING}`,
      json: ref('BattleResponse'),
      events: ref('ArenaEvent'),
      headers: ['X-Session-ID'],
    },
    raises: [ARENA_ERROR_ANSWERS],
    errors: { 503: 'No agent could answer (`stream: false`)' },
  },
  fight: {
    tag: 'Chat modes',
    summary: 'Fight: 2 to 8 models answer, see each other and vote',
    description: '`stream: false` is refused with 400 `STREAMING_REQUIRED`.',
    request: { name: 'ChatModeRequest', schema: arenaRequestSchema },
    success: {
      status: 200,
      description: `The session. ${ARENA_STREAM_FRAMING}`,
      events: ref('ArenaEvent'),
      headers: ['X-Session-ID'],
    },
    raises: [ARENA_ERROR_ANSWERS],
  },
  'sessions-events': {
    ...SESSION_ROUTE,
    summary: 'A session’s events, again and live',
    description:
      'Every event of the session after `Last-Event-ID` (the header an EventSource sends when it reconnects, ' +
      'or the `lastEventId` query parameter), each once and in order, then each new one while the session ' +
      'runs, whichever invocation plays it. Ends after the last event; a follow that reaches its own time ' +
      'limit ends with a `stream_handoff` frame and a `retry:` hint, and the caller reconnects.',
    pathParameters: { id: 'The session id (`X-Session-ID` of the battle or fight)' },
    parameters: [
      requestHeader('Last-Event-ID', 'The id of the last event the caller has', {
        type: 'string',
        pattern: '^[0-9]{1,10}$',
      }),
      query('lastEventId', 'As `Last-Event-ID`, for a client that cannot send headers', {
        type: 'string',
        pattern: '^[0-9]{1,10}$',
      }),
    ],
    success: {
      status: 200,
      description: `The session's events. ${ARENA_STREAM_FRAMING}`,
      events: ref('ArenaEvent'),
      headers: ['X-Session-ID'],
    },
  },
  'sessions-get': {
    ...SESSION_ROUTE,
    summary: 'A session’s state',
    pathParameters: { id: 'The session id' },
    success: { status: 200, description: 'The session', json: enveloped(ref('SessionState')) },
  },
  'sessions-list': {
    ...SESSION_ROUTE,
    summary: 'The account’s sessions, newest first',
    parameters: [
      query('limit', 'Sessions per page, 1 to 100 (default 20)', { type: 'string', pattern: '^[0-9]{1,3}$' }),
      query('cursor', 'The `nextCursor` of the previous page'),
    ],
    success: { status: 200, description: 'A page of sessions', json: enveloped(ref('SessionList')) },
  },
  'sessions-cancel': {
    ...SESSION_ROUTE,
    summary: 'Cancel a running session',
    description:
      'A session plays on when its caller leaves; this stops it. Its calls in flight are aborted (what they ' +
      'used is metered) and it ends `aborted` with an `error` event of code `session_cancelled`.',
    pathParameters: { id: 'The session id' },
    success: { status: 202, description: 'The cancellation', json: enveloped(ref('SessionCancel')) },
  },
  'arena-leaderboard': {
    ...SESSION_ROUTE,
    summary: 'The account’s leaderboard, from its fights’ votes',
    description:
      'Each vote is a pairwise win of the chosen answer over every other answer on its ballot (abstentions ' +
      'count nothing). Fits are computed off the request path and kept per range and options: the first ' +
      'request of a range is answered 202 `computing` with `Retry-After`.',
    parameters: [
      query('from', 'First day, YYYY-MM-DD (UTC); default 29 days before `to`'),
      query('to', 'Last day, YYYY-MM-DD (UTC); default today. At most 366 days in all'),
      query('style_control', 'Answer length and markdown as covariates', { enum: ['true', 'false'] }),
      query('family', 'Only these families’ models, comma-separated aliases'),
    ],
    success: { status: 200, description: 'The leaderboard', json: enveloped(ref('Leaderboard')) },
    alsoSucceeds: [
      {
        status: 202,
        description: 'The first fit of this range is being computed; ask again after `Retry-After` seconds',
        json: enveloped(ref('Leaderboard')),
        headers: ['Retry-After'],
      },
    ],
  },
  'chat-legacy': {
    tag: 'Chat modes',
    summary: 'Legacy chat (deprecated): `mode` picks chat, battle or fight',
    description:
      'Migrate to the v1 route of the mode and drop `mode`; headers, auth, body and answers are the same ' +
      '(POST /api/v1/chat/completions takes this body in `chat` mode as it is). Every answer, errors included, ' +
      'carries `Deprecation` and `Link` (the successor of each mode), and `Sunset` once the deployment has set a date.',
    deprecated: true,
    request: { name: 'LegacyChatRequest', schema: legacyChatRequestSchema },
    parameters: CHAT_HEADERS,
    success: {
      status: 200,
      description: `As the v1 route of the mode: JSON, or a stream of that route's events. ${ARENA_STREAM_FRAMING} ${CHAT_STREAM_FRAMING}`,
      json: { oneOf: [ref('ChatCompletion'), ref('BattleResponse')] },
      events: { oneOf: [ref('ArenaEvent'), ref('ChatCompletionChunk')] },
      headers: [...CHAT_ANSWER_HEADERS, 'X-Session-ID'],
    },
    raises: [ARENA_ERROR_ANSWERS, CHAT_STATUS_ERRORS],
    errors: { 503: 'No model could answer' },
  },
  search: {
    tag: 'Search',
    summary: 'Web search',
    request: { name: 'SearchRequest', schema: searchRequestSchema },
    success: { status: 200, description: 'The results (docs/interface.md §2.8)', json: enveloped(ref('SearchAnswer')) },
    raises: [SEARCH_ERROR_ANSWERS],
    errors: {
      500: 'The deployment has no search provider (`INTERNAL_ERROR`)',
      503: 'The search provider failed or did not answer (`SERVICE_UNAVAILABLE`)',
    },
  },
  embeddings: {
    tag: 'Gateway',
    summary: 'Embeddings',
    description:
      'docs/interface.md §4.12 (a gateway extension): OpenAI’s embeddings request for `text-embedding-3-small`, ' +
      '`text-embedding-3-large` and `gemini-embedding-001`, through the caller’s own provider keys first, with ' +
      'retries and failover, metered per upstream call and cached per account as chat completions are.',
    request: { name: 'EmbeddingsRequest', schema: embeddingsRequestSchema },
    parameters: CHAT_HEADERS.slice(0, 2),
    success: {
      status: 200,
      description: 'The embeddings, in the order of the inputs',
      json: ref('EmbeddingList'),
      headers: ['X-Model-Used', 'X-Retry-Count', 'X-Fallback-From', 'X-Cache'],
    },
    raises: [EMBEDDINGS_ERROR_ANSWERS],
    errors: {
      402: 'The key’s budget cannot hold the request’s greatest cost (`BUDGET_EXCEEDED`)',
      503: 'No provider of the model answered, or none is configured (`SERVICE_UNAVAILABLE`)',
    },
  },
  'images-analyze': {
    tag: 'Images',
    summary: 'Analyse an image',
    description:
      'A vision model describes the image, or answers `prompt` about it, through the chat router (failover, ' +
      'the caller’s own provider keys). Descriptions are cached per account for 7 days; a repeat is a ' +
      '`cache_hit` that costs nothing. `X-Cache: no-cache` asks afresh.',
    request: { name: 'ImageAnalysisRequest', schema: imageAnalysisSchema },
    parameters: [requestHeader('X-Cache', '`no-cache` skips the cache read', { enum: ['no-cache'] })],
    success: {
      status: 200,
      description: 'The analysis',
      json: enveloped(ref('ImageAnalysis')),
      headers: ['X-Model-Used', 'X-Cache'],
    },
    errors: { 503: 'No vision model could answer (`SERVICE_UNAVAILABLE`)' },
  },
  'media-speech': {
    tag: 'Media',
    summary: 'Text to speech',
    description:
      'The audio itself, streamed as it is synthesized. A failure before the first byte is a JSON error; ' +
      'after it the response is cut, so it never looks complete.',
    request: { name: 'SpeechRequest', schema: speechRequestSchema },
    success: {
      status: 200,
      description: 'The audio in the asked format (raw PCM: 16-bit little-endian mono)',
      binary: ['audio/mpeg', 'audio/wav', 'audio/flac', 'audio/pcm'],
    },
    raises: [MEDIA_ERROR_ANSWERS],
    errors: { 503: 'MiniMax is not configured, or failed (`SERVICE_UNAVAILABLE`)' },
  },
  'media-music': {
    tag: 'Media',
    summary: 'Generate a song',
    description:
      'Songs take minutes: while one is pending the body starts with a space every 10 s (JSON allows ' +
      'leading whitespace); a failure after that arrives as `{success:false, error}` in the 200 body.',
    request: { name: 'MusicRequest', schema: musicRequestSchema },
    success: { status: 200, description: 'The song (docs/interface.md §2.13)', json: enveloped(ref('MusicResult')) },
    raises: [MEDIA_ERROR_ANSWERS],
    errors: { 503: 'MiniMax is not configured, or failed (`SERVICE_UNAVAILABLE`)' },
  },
  'media-video': {
    tag: 'Media',
    summary: 'Submit a video job',
    description:
      'Checks and translates the request (camera commands, the duration and resolution MiniMax makes) before ' +
      'any upstream call, submits it, and starts the job poller. Poll `GET /api/v1/media/video/status`; a video ' +
      'takes 1 to 3 minutes. A finished video is metered in seconds.',
    request: { name: 'VideoRequest', schema: videoRequestSchema },
    success: { status: 200, description: 'The job (docs/interface.md §4.9)', json: enveloped(ref('VideoSubmitted')) },
    raises: [MEDIA_ERROR_ANSWERS],
    errors: { 503: 'MiniMax is not configured, or failed (`SERVICE_UNAVAILABLE`)' },
  },
  'media-video-status': {
    tag: 'Media',
    summary: 'A video job’s status',
    description:
      'From the job record. On `Success`, `download_url` works for at least 10 more minutes: MiniMax’s links ' +
      'expire within an hour, so a fresh one is fetched when the kept one runs short.',
    parameters: [{ ...query('task_id', 'The `task_id` the submit answered'), required: true }],
    success: { status: 200, description: 'The job (docs/interface.md §2.13)', json: enveloped(ref('VideoJob')) },
    raises: [MEDIA_ERROR_ANSWERS, { not_found: VIDEO_TASK_NOT_FOUND }],
    errors: {
      404: 'No such task of this account (`NOT_FOUND`)',
      503: 'MiniMax’s file API failed (`SERVICE_UNAVAILABLE`)',
    },
  },
  'fashion-run': {
    tag: 'Fashion',
    summary: 'Submit a fashion prediction',
    description:
      'Checks `inputs` against the model (docs/interface.md §4.10), submits to FASHN and starts the job poller; poll ' +
      '`GET /api/v1/fashion/status/{id}`. A completed prediction is metered in credits; a failed one costs none.',
    request: { name: 'FashionRequest', schema: fashionRequestSchema },
    parameters: [IDEMPOTENCY_KEY],
    success: {
      status: 200,
      description: 'The prediction, `starting`',
      json: enveloped(ref('FashionRun')),
      headers: ['Idempotency-Replayed'],
    },
    raises: [FASHION_ERROR_ANSWERS, IDEMPOTENCY_ERROR_ANSWERS],
    errors: FASHION_ERRORS,
  },
  'fashion-status': {
    tag: 'Fashion',
    summary: 'A fashion prediction’s status',
    description: 'A failed prediction is `status: failed` with its `error`, inside `success: true`.',
    pathParameters: { id: 'The `prediction_id` run or subscribe answered' },
    success: {
      status: 200,
      description: 'The prediction (docs/interface.md §2.12)',
      json: enveloped(ref('FashionPrediction')),
    },
    errors: { 404: FASHION_ERRORS[404], 503: FASHION_ERRORS[503] },
  },
  'fashion-subscribe': {
    tag: 'Fashion',
    summary: 'Submit a fashion prediction and stream it',
    description:
      'As run, then the prediction’s progress for at most two minutes; a refused submission is a JSON error. ' +
      'The poller carries on after the stream ends. A repeat with the same Idempotency-Key watches the same ' +
      `prediction; at most ${MAX_WATCHERS_PER_JOB} streams watch one at once, past that \`429\` ` +
      '(`RATE_LIMIT_EXCEEDED`, `Retry-After`).',
    request: { name: 'FashionRequest', schema: fashionRequestSchema },
    parameters: [IDEMPOTENCY_KEY],
    success: {
      status: 200,
      description: `The stream. ${FASHION_STREAM_FRAMING}`,
      events: ref('FashionEvent'),
      headers: ['Idempotency-Replayed'],
    },
    raises: [FASHION_ERROR_ANSWERS, IDEMPOTENCY_ERROR_ANSWERS],
    errors: FASHION_ERRORS,
  },
  'themes-get': {
    tag: 'Themes',
    summary: 'One design system',
    parameters: [
      query('id', 'A theme slug; takes precedence over `platform`'),
      query('platform', 'Biases the random draw', { enum: [...THEME_PLATFORMS] }),
    ],
    success: { status: 200, description: 'The theme (docs/interface.md §2.11)', json: enveloped(ref('Theme')) },
    raises: [THEME_ERROR_ANSWERS],
    errors: {
      404: 'No theme has this `id` (`NOT_FOUND`)',
      503: 'The theme provider failed (`SERVICE_UNAVAILABLE`)',
    },
  },
  'auth-password': {
    tag: 'Dashboard',
    summary: 'Change the signed-in user’s password',
    description:
      'The current password is checked as a sign-in is, and throttled as one. The change ends every session ' +
      'of the account, this one included; the answer sets the cookie of a new one.',
    request: { name: 'ChangePasswordRequest', schema: CHANGE_PASSWORD_BODY },
    success: {
      status: 200,
      description: 'Changed; the new session’s cookie is set',
      json: enveloped(ref('SignedIn')),
      headers: ['Set-Cookie'],
    },
    raises: [SIGN_IN_ERROR_ANSWERS],
    errors: {
      400: 'Invalid input (`BAD_REQUEST`, naming the field); or `newPassword` breaks the password policy',
      401:
        'No session, or a wrong `currentPassword` (`UNAUTHORIZED`); the account has MFA and no `totpCode` ' +
        'was sent (`MFA_REQUIRED`), or a wrong one (`INVALID_TOTP_CODE`)',
      403:
        'A foreign `Origin` (`FORBIDDEN`); or the deployment requires MFA and the user has none yet ' +
        '(`MFA_SETUP_REQUIRED`)',
    },
  },
  'auth-mfa': {
    tag: 'Dashboard',
    summary: 'Set up the signed-in user’s authenticator (TOTP MFA)',
    description:
      'Two steps. With `currentPassword` (and, to replace an authenticator, its `totpCode`) a new secret is ' +
      'answered, for the user’s authenticator app; the set-up waits ' +
      `${MFA_SETUP_VALIDITY_MS / 60_000} minutes. Then with \`totpCode\` alone, a code of the new secret switches ` +
      'MFA on: every sign-in asks for a code from then on. Both steps are sign-in attempts for the throttle ' +
      '(a wrong code counts as a wrong password does).',
    request: { name: 'MfaSetupRequest', schema: MFA_SETUP_BODY },
    success: {
      status: 200,
      description: 'The set-up begun (`setup`, shown this once), or MFA switched on (`enabled: true`)',
      json: enveloped(ref('MfaState')),
    },
    raises: [SIGN_IN_ERROR_ANSWERS],
    errors: {
      400: 'Invalid input (`BAD_REQUEST`, naming the field); neither field sent names `totpCode`',
      401:
        'No session, or a wrong `currentPassword` (`UNAUTHORIZED`); the account has MFA and no `totpCode` ' +
        'was sent beside the password (`MFA_REQUIRED`); a wrong code (`INVALID_TOTP_CODE`)',
      409: 'A code without a set-up waiting for it (`CONFLICT`)',
    },
  },
  'auth-mfa-delete': {
    tag: 'Dashboard',
    summary: 'Turn the signed-in user’s authenticator off',
    description:
      'The password and a code of the authenticator, checked and throttled as a sign-in. Refused where the ' +
      'deployment requires MFA for every dashboard user.',
    request: { name: 'MfaDisableRequest', schema: MFA_DISABLE_BODY },
    success: { status: 200, description: 'MFA is off', json: enveloped(ref('MfaState')) },
    raises: [SIGN_IN_ERROR_ANSWERS],
    errors: {
      401: 'No session, or a wrong `currentPassword` (`UNAUTHORIZED`); a wrong code (`INVALID_TOTP_CODE`)',
      409: 'No authenticator is on, or the deployment requires one (`CONFLICT`)',
    },
  },
  'auth-login': {
    tag: 'Dashboard',
    summary: 'Sign in to the dashboard',
    description:
      'An account with an authenticator (MFA) signs in with its `totpCode` beside the password. Where the ' +
      'deployment requires MFA and the user has none yet, the right password is answered 202 with a new ' +
      'authenticator secret and no session; the same sign-in with a code of it then sets MFA up and signs in.',
    request: { name: 'LoginRequest', schema: LOGIN_BODY },
    success: {
      status: 200,
      description: 'Signed in; the cookie is set',
      json: enveloped(ref('SignedIn')),
      headers: ['Set-Cookie'],
    },
    alsoSucceeds: [
      {
        status: 202,
        description:
          'The deployment requires MFA and the user has none: the secret for the authenticator app (shown this ' +
          `once; it waits ${MFA_SETUP_VALIDITY_MS / 60_000} minutes for a sign-in with its code); no session`,
        json: enveloped(ref('MfaSetupBegun')),
      },
    ],
    raises: [SIGN_IN_ERROR_ANSWERS],
    errors: {
      401:
        'Wrong email or password, one answer for both (`UNAUTHORIZED`); or `PASSWORD_RESET_REQUIRED`; the ' +
        'account has MFA and no `totpCode` was sent (`MFA_REQUIRED`, no cookie), or a wrong or used one ' +
        '(`INVALID_TOTP_CODE`)',
      400: 'Invalid input (`BAD_REQUEST`, naming the field); or `newPassword` breaks the password policy',
      403:
        'The password is the temporary one an administrator set and no `newPassword` was sent ' +
        '(`PASSWORD_CHANGE_REQUIRED`); or a foreign `Origin` (`FORBIDDEN`)',
      429:
        `Too many sign-in attempts (\`RATE_LIMIT_EXCEEDED\`): for the email, ${LOGIN_LIMITS.freeFailures} failures, then a ` +
        `lock of ${LOGIN_LIMITS.firstLockMs / 1000} s doubling with each failure to ${LOGIN_LIMITS.maxLockMs / 60_000} min; ` +
        `from the client, ${LOGIN_LIMITS.clientAttempts} unsuccessful per ${LOGIN_LIMITS.clientWindowMs / 60_000} min`,
    },
  },
  'auth-logout': {
    tag: 'Dashboard',
    summary: 'Sign out',
    success: { status: 204, description: 'Signed out; the cookie is cleared', headers: ['Set-Cookie'] },
  },
  'auth-session': {
    tag: 'Dashboard',
    summary: 'The signed-in session',
    success: { status: 200, description: 'Who is signed in', json: enveloped(ref('DashboardSession')) },
  },
  'keys-create': {
    tag: 'Dashboard',
    summary: 'Create a service API key',
    request: { name: 'CreateKeyRequest', schema: CREATE_KEY_BODY },
    success: { status: 201, description: 'The key, shown in full this once', json: enveloped(ref('IssuedApiKey')) },
  },
  'keys-list': {
    tag: 'Dashboard',
    summary: 'List service API keys',
    success: {
      status: 200,
      description: 'The keys, masked, each budget with its current period’s spend',
      json: enveloped(ref('ApiKeyList')),
    },
  },
  'keys-update': {
    tag: 'Dashboard',
    summary: 'Rename, re-limit, budget, enable or disable a key',
    description:
      'A null field is left as it is, except `budget`, whose null removes the key’s budget. The answer is the key as changed, its budget with the current period’s spend.',
    request: { name: 'UpdateKeyRequest', schema: UPDATE_KEY_BODY },
    pathParameters: KEY_ID,
    success: { status: 200, description: 'The key as changed', json: enveloped(ref('ApiKeyUpdate')) },
  },
  'keys-delete': {
    tag: 'Dashboard',
    summary: 'Revoke a key (permanent)',
    pathParameters: KEY_ID,
    success: { status: 204, description: 'Revoked' },
  },
  'account-budget-get': {
    tag: 'Dashboard',
    summary: 'The account’s budget and its current period’s spend',
    description:
      'A gateway extension (docs/interface.md §2.5): the limit every call of the account falls under, whichever key ' +
      'or session makes it, beside each key’s own. `budget` is null when the account has none; `webhookUrl` is where ' +
      'budget threshold crossings are posted (`BudgetThresholdEvent`, §6.4), null when none.',
    success: { status: 200, description: 'The account’s budget', json: enveloped(ref('AccountBudget')) },
  },
  'account-budget-set': {
    tag: 'Dashboard',
    summary: 'Set or remove the account’s budget and its budget webhook',
    description:
      'A gateway extension (docs/interface.md §2.5). At least one of `budget` (`{limitUsd, period}`, or null to remove ' +
      'the budget) and `webhookUrl` (a public https URL, or null to remove it; else 400 naming `webhookUrl`); a ' +
      'field left out stays as it is. The webhook receives a signed `BudgetThresholdEvent` (§6.4) whenever the ' +
      'account’s budget or one of its keys’ budgets crosses 50, 80 or 100%. Every instance sees the change within 2 ' +
      'seconds; what the period has spent stays counted.',
    request: { name: 'AccountBudgetRequest', schema: ACCOUNT_BUDGET_BODY },
    success: {
      status: 200,
      description: 'The account’s budget as it now stands',
      json: enveloped(ref('AccountBudget')),
    },
  },
  'provider-keys-create': {
    tag: 'Dashboard',
    summary: 'Store a provider key',
    request: { name: 'CreateProviderKeyRequest', schema: CREATE_PROVIDER_KEY_BODY },
    success: { status: 201, description: 'Stored', json: enveloped(ref('ProviderKey')) },
    errors: { 409: 'The slug is already used (`CONFLICT`)' },
  },
  'provider-keys-list': {
    tag: 'Dashboard',
    summary: 'List provider keys',
    success: {
      status: 200,
      description: 'The keys, masked to their last four characters',
      json: enveloped(ref('ProviderKeyList')),
    },
  },
  'provider-keys-delete': {
    tag: 'Dashboard',
    summary: 'Delete a provider key',
    pathParameters: { id: 'The provider key id' },
    success: { status: 204, description: 'Deleted' },
  },
  'webhooks-secret-get': {
    tag: 'Dashboard',
    summary: 'The webhook signing secret',
    description:
      'The secret job webhooks are signed with (docs/interface.md §6.4, Standard Webhooks), made on the first read; during a rotation window also the previous one.',
    success: { status: 200, description: 'The secret', json: enveloped(ref('WebhookSecret')) },
  },
  'webhooks-secret-rotate': {
    tag: 'Dashboard',
    summary: 'Rotate the webhook signing secret',
    description:
      'A new secret signs from now on; for 24 hours the previous one signs too (two signatures per delivery).',
    success: { status: 200, description: 'The new secret and the previous one', json: enveloped(ref('WebhookSecret')) },
  },
  'usage-get': {
    tag: 'Usage',
    summary: 'Usage and estimated cost',
    parameters: PERIOD,
    success: {
      status: 200,
      description: 'The usage record (docs/interface.md §2.7)',
      json: enveloped(ref('UsageRecord')),
    },
  },
  'requests-list': {
    tag: 'Usage',
    summary: 'The request log: one row per request, newest first',
    description:
      'A gateway extension (docs/interface.md §4.8.1). Read from the ledger a page at a time: a page makes at ' +
      'most 64 reads, so a filter that matches little can answer fewer rows than `limit` with a `nextCursor`. ' +
      'No prompt or answer is stored.',
    parameters: [
      query('from', 'ISO 8601 date (whole UTC day) or date-time: requests started at or after it'),
      query('to', 'ISO 8601 date (inclusive) or date-time: requests started at or before it'),
      query('keyId', 'Only this API key’s requests; `none`: requests made without a key'),
      query('model', 'Only requests this model answered (or last tried)'),
      query('route', 'Only requests of this route (manifest id, e.g. `chat-completions`)'),
      query('status', 'Only requests whose last attempt had this upstream status', {
        type: 'string',
        pattern: '^(0|[1-5][0-9]{2})$',
      }),
      query('limit', 'Requests per page, 1 to 200 (default 50)', { type: 'string', pattern: '^[0-9]{1,3}$' }),
      query('cursor', 'The `nextCursor` of the previous page'),
    ],
    success: { status: 200, description: 'A page of requests', json: enveloped(ref('RequestLogPage')) },
  },
  'requests-get': {
    tag: 'Usage',
    summary: 'A request’s kept prompt and answer',
    description:
      'A gateway extension (docs/interface.md §4.8.1): kept only for chat requests of keys that opted in ' +
      '(`contentLog` on the key), for the key’s retention. The messages are as they went upstream (guardrails ' +
      'applied, inline images left out); the answer as the caller received it. 404 when none is kept.',
    pathParameters: { id: 'The request id (`X-Request-ID`, the log row’s `id`)' },
    success: { status: 200, description: 'The request’s content', json: enveloped(ref('RequestContent')) },
    errors: { 404: 'No content is kept for this request (`NOT_FOUND`)' },
  },
  'admin-accounts-create': {
    tag: 'Admin',
    summary: 'Provision an account and its dashboard user',
    request: { name: 'CreateAccountRequest', schema: CREATE_ACCOUNT_BODY },
    success: {
      status: 201,
      description: 'The account; the initial password is shown once',
      json: enveloped(ref('Account')),
    },
    raises: [EMAIL_TAKEN_ANSWERS],
    errors: { 409: 'An account with this email exists (`CONFLICT`)' },
  },
  'admin-accounts-update': {
    tag: 'Admin',
    summary: 'Set or remove an account’s budget and its budget webhook',
    description:
      'The operator’s side of `PATCH /api/v1/budget` (docs/interface.md §2.5): the same single budget and budget ' +
      'webhook, set for the account. At least one of `budget` (`{limitUsd, period}`, or null) and `webhookUrl` (a ' +
      'public https URL, or null).',
    request: { name: 'AccountBudgetRequest', schema: ACCOUNT_BUDGET_BODY },
    pathParameters: { id: 'The account id (`acc_…`)' },
    success: {
      status: 200,
      description: 'The account’s budget as it now stands',
      json: enveloped({
        allOf: [ref('AccountBudget'), { type: 'object', properties: { accountId: { type: 'string' } } }],
      }),
    },
    errors: { 404: 'No such account (`NOT_FOUND`)' },
  },
  'admin-keys-create': {
    tag: 'Admin',
    summary: 'Mint a secret or publishable key for an account',
    request: { name: 'AdminCreateKeyRequest', schema: ADMIN_CREATE_KEY_BODY },
    success: { status: 201, description: 'The key, shown in full this once', json: enveloped(ref('IssuedApiKey')) },
    errors: { 404: 'No such account (`NOT_FOUND`)' },
  },
  'admin-keys-delete': {
    tag: 'Admin',
    summary: 'Revoke a key (permanent)',
    pathParameters: KEY_ID,
    success: { status: 204, description: 'Revoked' },
  },
  'admin-usage-get': {
    tag: 'Admin',
    summary: 'An account’s usage',
    parameters: [{ ...query('accountId', 'The account'), required: true }, ...PERIOD],
    success: { status: 200, description: 'The usage record', json: enveloped(ref('AccountUsageRecord')) },
    errors: { 404: 'No such account (`NOT_FOUND`)' },
  },
};
