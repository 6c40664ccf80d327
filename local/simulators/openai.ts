import type { SimResponse, SimulatorDefinition } from './harness.js';
import {
  catalogModels,
  defineOpenAiCompatibleSimulator,
  json,
  maskKey,
  openAiModel,
  type SimModel,
} from './openai-compatible-simulator.js';
import { embeddingsRoute } from './openai-embeddings.js';
import { moderationsRoute } from './openai-moderations.js';
import { openAiUsage, randomId, type WireRequest } from './openai-wire.js';

/**
 * The OpenAI fake (docs/upstreams.md §1 and its Simulator checklist): `/v1/chat/completions`,
 * `/v1/models`, `/v1/embeddings` (openai-embeddings.ts: deterministic vectors), `/v1/moderations`
 * (openai-moderations.ts: flagging by `[sim:flag]`), OpenAI's
 * `{error:{message,type,param,code}}` envelope, `x-request-id`, `openai-processing-ms` and the
 * six `x-ratelimit-*` headers with counters that go down.
 *
 * `[sim:error=429:VARIANT]` variants: `insufficient_quota` (billing, not transient),
 * `no_retry_after` (a 429 without retry headers: only the message says when),
 * `no_retry` (adds `x-should-retry: false`).
 */

const LIMIT_REQUESTS = 5000;
const LIMIT_TOKENS = 160_000;
const WINDOW_MS = 60_000;
/** The 429's wait: `retry-after` is whole seconds, `retry-after-ms` exact. */
const RETRY_MS = 250;

const EXTRAS: SimModel[] = [
  { id: 'gpt-4o-mini', created: 1721172741, ownedBy: 'system' },
  { id: 'gpt-4.1-mini', created: 1744318173, ownedBy: 'system' },
  { id: 'o4-mini', created: 1744225308, ownedBy: 'system' },
];
const MODELS = catalogModels('openai', () => 'system', EXTRAS);
/** Reasoning models take `max_completion_tokens` only. */
const REASONING = /^(o\d|gpt-5)/;

/** A fixed one-minute window: enough for headers that count down. */
const usage = { since: Date.now(), requests: 0, tokens: 0 };

function rateLimitHeaders(exhausted = false): Record<string, string> {
  const now = Date.now();
  if (now - usage.since >= WINDOW_MS) Object.assign(usage, { since: now, requests: 0, tokens: 0 });
  const requests = exhausted ? LIMIT_REQUESTS : Math.min(usage.requests, LIMIT_REQUESTS);
  const tokens = exhausted ? LIMIT_TOKENS : Math.min(usage.tokens, LIMIT_TOKENS);
  return {
    'x-ratelimit-limit-requests': String(LIMIT_REQUESTS),
    'x-ratelimit-limit-tokens': String(LIMIT_TOKENS),
    'x-ratelimit-remaining-requests': String(LIMIT_REQUESTS - requests),
    'x-ratelimit-remaining-tokens': String(LIMIT_TOKENS - tokens),
    'x-ratelimit-reset-requests': goDuration(exhausted ? RETRY_MS : (WINDOW_MS * requests) / LIMIT_REQUESTS),
    'x-ratelimit-reset-tokens': goDuration(exhausted ? RETRY_MS : (WINDOW_MS * tokens) / LIMIT_TOKENS),
  };
}

/** Go-style durations as OpenAI writes them: `12ms`, `1.5s`, `6m0s`. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(3))}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

const requestHeaders = (): Record<string, string> => ({
  'x-request-id': `req_${randomId(16)}`,
  'openai-processing-ms': String(20 + Math.floor(Math.random() * 80)),
  'openai-version': '2020-10-01',
  'openai-organization': 'org-sim',
});

interface ErrorSpec {
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
  readonly param?: string;
}

function errorSpec(status: number, variant: string | undefined, model: string): ErrorSpec {
  switch (status) {
    case 400:
      return {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        param: 'messages',
      };
    case 401:
      return {
        message:
          'Incorrect API key provided: sk-sim***. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      };
    case 403:
      return {
        message: 'Country, region, or territory not supported',
        type: 'request_forbidden',
        code: 'unsupported_country_region_territory',
      };
    case 404:
      return {
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: 'model',
      };
    case 429:
      return variant === 'insufficient_quota'
        ? {
            message:
              'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
            type: 'insufficient_quota',
            code: 'insufficient_quota',
          }
        : {
            message: `Rate limit reached for ${model} in organization org-sim on requests per min (RPM): Limit ${LIMIT_REQUESTS}, Used ${LIMIT_REQUESTS}, Requested 1. Please try again in ${RETRY_MS}ms. Visit https://platform.openai.com/account/rate-limits to learn more.`,
            type: 'requests',
            code: 'rate_limit_exceeded',
          };
    case 500:
      return {
        message: 'The server had an error while processing your request. Sorry about that!',
        type: 'server_error',
        code: null,
      };
    case 503:
      return {
        message: 'The engine is currently overloaded, please try again later.',
        type: 'server_error',
        code: null,
      };
    default:
      return {
        message: `The upstream answered ${status}.`,
        type: status >= 500 ? 'server_error' : 'invalid_request_error',
        code: null,
      };
  }
}

function openAiError(status: number, variant?: string, model = 'unknown'): SimResponse {
  const spec = errorSpec(status, variant, model);
  const rateLimited = status === 429 && spec.code === 'rate_limit_exceeded';
  return json(
    status,
    { error: { message: spec.message, type: spec.type, param: spec.param ?? null, code: spec.code } },
    {
      ...requestHeaders(),
      ...rateLimitHeaders(rateLimited),
      ...(rateLimited && variant !== 'no_retry_after'
        ? { 'retry-after': String(Math.ceil(RETRY_MS / 1000)), 'retry-after-ms': String(RETRY_MS) }
        : {}),
      ...(variant === 'no_retry' ? { 'x-should-retry': 'false' } : {}),
    },
  );
}

const invalid = (message: string, param: string | null, code: string | null): SimResponse =>
  json(400, { error: { message, type: 'invalid_request_error', param, code } }, requestHeaders());

function check(request: WireRequest): SimResponse | undefined {
  if (request.max_tokens != null && REASONING.test(request.model)) {
    return invalid(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
  }
  if (request.stream_options != null && request.stream !== true) {
    return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', null);
  }
  return undefined;
}

export const openAiSimulator: SimulatorDefinition = defineOpenAiCompatibleSimulator({
  name: 'openai',
  prefix: '/v1',
  models: MODELS,
  modelVariants: false,
  publicModels: false,
  callIdPrefix: 'call_',
  answerId: () => `chatcmpl-${randomId(12)}`,
  frame: (_model, turn) => ({
    extras: { service_tier: 'default', system_fingerprint: 'fp_sim0001' },
    finishExtras: () => ({}),
    usage: openAiUsage(turn),
  }),
  streamOptions: (request) => ({
    includeUsage: request.stream_options?.include_usage === true,
    obfuscate: request.stream_options?.include_obfuscation !== false,
  }),
  headers: () => ({ ...requestHeaders(), ...rateLimitHeaders() }),
  onAnswer: (_id, _model, turn) => {
    usage.requests++;
    usage.tokens += turn.promptTokens + turn.completionTokens;
  },
  modelsBody: (models) => ({ object: 'list', data: models.map(openAiModel) }),
  modelBody: openAiModel,
  error: openAiError,
  invalid: (problem) => invalid(problem.message, problem.param, problem.code),
  unknownModel: (model) => openAiError(404, undefined, model),
  authError: (key) =>
    key
      ? json(
          401,
          {
            error: {
              message: `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_api_key',
            },
          },
          requestHeaders(),
        )
      : json(
          401,
          {
            error: {
              message:
                "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
              type: 'invalid_request_error',
              param: null,
              code: null,
            },
          },
          requestHeaders(),
        ),
  check,
  extraRoutes: [
    embeddingsRoute({
      prefix: '/v1',
      models: [
        { id: 'text-embedding-3-small', dimensions: 1536, shortens: true },
        { id: 'text-embedding-3-large', dimensions: 3072, shortens: true },
        { id: 'text-embedding-ada-002', dimensions: 1536, shortens: false },
      ],
      invalid,
      unknownModel: (model) => openAiError(404, undefined, model),
      headers: requestHeaders,
    }),
    moderationsRoute({
      prefix: '/v1',
      invalid,
      unknownModel: (model) => openAiError(404, undefined, model),
      headers: requestHeaders,
    }),
  ],
  streamError: (code) => ({
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code,
    },
  }),
});
