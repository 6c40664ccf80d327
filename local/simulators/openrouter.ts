import { randomBytes } from 'node:crypto';
import { costMicroUsd, priceOf } from '../../lambdas/catalog/model-catalog.js';
import type { SimResponse, SimulatorDefinition } from './harness.js';
import { catalogModels, defineOpenAiCompatibleSimulator, json, type SimModel } from './openai-compatible-simulator.js';
import { embeddingsRoute } from './openai-embeddings.js';
import { completionBody, openAiUsage, type AnswerFrame } from './openai-wire.js';
import { NO_PACING } from './pacing.js';
import { NO_TOKEN_PARTS } from './usage-directives.js';
import type { ScriptTurn } from './script-types.js';

/**
 * The OpenRouter fake (docs/upstreams.md §4.1 and its Simulator checklist): the OpenAI skin at
 * `/api/v1`, `vendor/model[:variant]` ids, usage always (with `cost`), `provider` and
 * `native_finish_reason`, `: OPENROUTER PROCESSING` before the first event, `X-Generation-Id`,
 * errors `{error:{code,message,metadata?}}`, the `/key` and `/generation` lookups, and
 * `/api/v1/embeddings` for the catalog's embedding routes (openai-embeddings.ts).
 *
 * `[sim:error=429:upstream]` is a 429 passed on from the upstream provider: no X-RateLimit-*.
 * `[sim:midway_error=502]` (numeric code) or `[sim:midway_error=server_error]` (string code).
 */

const MODELS = catalogModels('openrouter', (id) => id.split('/')[0]!);

const VENDOR_NAMES: Readonly<Record<string, string>> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  'x-ai': 'xAI',
  deepseek: 'DeepSeek',
  qwen: 'Alibaba',
  mistralai: 'Mistral',
  moonshotai: 'Moonshot AI',
  'meta-llama': 'Meta',
};
const providerName = (model: string): string => VENDOR_NAMES[model.split('/')[0]!] ?? 'OpenRouter';

/** The serving provider's own finish reason, which OpenRouter passes on next to its own. */
const NATIVE_FINISH: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  anthropic: { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' },
  google: { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' },
};

const ERRORS: Readonly<Record<number, { readonly message: (model: string) => string; readonly type: string }>> = {
  400: {
    message: () =>
      "This endpoint's maximum context length is 128000 tokens. However, you requested about 131072 tokens.",
    type: 'context_length_exceeded',
  },
  401: { message: () => 'User not found.', type: 'authentication' },
  402: {
    message: () => 'Insufficient credits. Add more using https://openrouter.ai/settings/credits',
    type: 'payment_required',
  },
  403: {
    message: (model) => `${model} requires moderation on OpenRouter. Your input was flagged for "harassment".`,
    type: 'permission_denied',
  },
  404: { message: (model) => `No endpoints found for ${model}.`, type: 'not_found' },
  408: { message: () => 'Request timed out.', type: 'timeout' },
  429: {
    message: (model) => `Rate limit exceeded: ${model} is limited to 20 requests per minute.`,
    type: 'rate_limit_exceeded',
  },
  500: { message: () => 'Internal Server Error', type: 'server' },
  502: { message: () => 'Provider returned error', type: 'provider_unavailable' },
  503: {
    message: () => 'No instances available for the requested model. Please retry shortly.',
    type: 'provider_overloaded',
  },
  504: { message: () => 'Provider timed out.', type: 'timeout' },
};

function openRouterError(status: number, variant?: string, model = 'unknown'): SimResponse {
  const spec = ERRORS[status] ?? {
    message: () => `The upstream answered ${status}.`,
    type: status >= 500 ? 'server' : 'invalid_request',
  };
  const metadata: Record<string, unknown> = { error_type: spec.type };
  if (status === 403)
    Object.assign(metadata, {
      reasons: ['harassment'],
      flagged_input: 'you said…',
      provider_name: providerName(model),
      model_slug: model,
    });
  if (status === 429 && variant === 'upstream')
    Object.assign(metadata, {
      provider_name: providerName(model),
      raw: `${model} is temporarily rate-limited upstream.`,
    });
  const headers: Record<string, string> = status === 429 || status === 503 ? { 'Retry-After': '1' } : {};
  if (status === 429 && variant !== 'upstream') {
    Object.assign(headers, {
      'X-RateLimit-Limit': '20',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Date.now() + 1000),
    });
  }
  return json(status, { error: { code: status, message: spec.message(model), metadata } }, headers);
}

/** Kept for `GET /api/v1/generation?id=`. */
const generations = new Map<string, { model: string; turn: ScriptTurn; at: string }>();
const MAX_GENERATIONS = 1000;

/** What OpenRouter charges: its upstream's list price of every part (cache writes at the write rate). */
const cost = (model: string, turn: ScriptTurn): number => {
  const { cacheRead, cacheWrite5m, cacheWrite1h, reasoning } = turn.parts;
  return (
    costMicroUsd(model.replace(/:[a-z-]+$/, ''), {
      promptTokens: turn.promptTokens,
      completionTokens: turn.completionTokens + reasoning,
      cachedTokens: cacheRead,
      cacheWriteTokens: cacheWrite5m + cacheWrite1h,
      cacheWrite1hTokens: cacheWrite1h,
    }).microUsd / 1e6
  );
};

/** OpenAI's usage plus OpenRouter's: cache writes (one count, whatever their time) and the cost. */
function usage(model: string, turn: ScriptTurn): Record<string, unknown> {
  const { cacheRead, cacheWrite5m, cacheWrite1h, reasoning } = turn.parts;
  return {
    ...openAiUsage(turn),
    prompt_tokens_details: {
      cached_tokens: cacheRead,
      cache_write_tokens: cacheWrite5m + cacheWrite1h,
      audio_tokens: 0,
    },
    completion_tokens_details: { reasoning_tokens: reasoning },
    cost: cost(model, turn),
    is_byok: false,
    cost_details: {
      upstream_inference_cost: null,
      upstream_inference_prompt_cost: 0,
      upstream_inference_completions_cost: 0,
    },
  };
}

function midwayError(code: string) {
  const numeric = /^\d+$/.test(code) ? Number(code) : undefined;
  return {
    code: numeric ?? code,
    message: 'Provider disconnected unexpectedly',
    metadata: {
      error_type: numeric === 429 ? 'rate_limit_exceeded' : 'provider_unavailable',
      provider_code: 'upstream_disconnect',
    },
  };
}

const frameFields = (frame: AnswerFrame) => ({
  id: frame.id,
  created: frame.created,
  model: frame.model,
  ...frame.extras,
});

export const openRouterSimulator: SimulatorDefinition = defineOpenAiCompatibleSimulator({
  name: 'openrouter',
  prefix: '/api/v1',
  models: MODELS,
  modelVariants: true,
  publicModels: true,
  keepAlive: 'OPENROUTER PROCESSING',
  callIdPrefix: 'call_',
  answerId: () => `gen-${Math.floor(Date.now() / 1000)}-${randomBytes(10).toString('base64url')}`,
  frame: (model, turn) => ({
    extras: { provider: providerName(model) },
    finishExtras: (finish) => ({ native_finish_reason: NATIVE_FINISH[model.split('/')[0]!]?.[finish] ?? finish }),
    usage: usage(model, turn),
  }),
  // `stream_options.include_usage` is a deprecated no-op: usage always comes.
  streamOptions: () => ({ includeUsage: true, obfuscate: false }),
  headers: (id) => ({ 'X-Generation-Id': id }),
  onAnswer: (id, model, turn) => {
    generations.set(id, { model, turn, at: new Date().toISOString() });
    if (generations.size > MAX_GENERATIONS) generations.delete(generations.keys().next().value!);
  },
  modelsBody: (models) => ({ data: models.map(modelBody) }),
  error: openRouterError,
  invalid: (problem) => invalidRequest(problem.message),
  unknownModel: (model) => unknownModel(model),
  authError: (key) =>
    json(401, { error: { code: 401, message: key ? 'User not found.' : 'No auth credentials found' } }),
  streamError: (code, frame) => ({
    ...frameFields(frame),
    object: 'chat.completion.chunk',
    error: midwayError(code),
    choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: null }],
  }),
  bodyError: (code, frame, partial) => {
    const body = completionBody(
      {
        text: partial,
        pieces: [],
        toolCalls: [],
        finishReason: 'stop',
        promptTokens: 0,
        completionTokens: 0,
        pacing: NO_PACING,
        parts: NO_TOKEN_PARTS,
      },
      frame,
    );
    const [choice] = body['choices'] as Record<string, unknown>[];
    return {
      ...body,
      choices: [{ ...choice, finish_reason: 'error', native_finish_reason: null, error: midwayError(code) }],
    };
  },
  extraRoutes: [
    embeddingsRoute({
      prefix: '/api/v1',
      models: [
        { id: 'openai/text-embedding-3-small', dimensions: 1536, shortens: true },
        { id: 'openai/text-embedding-3-large', dimensions: 3072, shortens: true },
        { id: 'google/gemini-embedding-001', dimensions: 3072, shortens: true },
      ],
      invalid: (message) => invalidRequest(message),
      unknownModel: (model) => unknownModel(model),
      headers: () => ({}),
    }),
    {
      method: 'GET',
      path: /^\/api\/v1\/key$/,
      faultable: false,
      handle: (exchange) =>
        exchange.send(
          json(200, {
            data: {
              label: 'sk-or-v1-sim...',
              limit: null,
              limit_remaining: null,
              limit_reset: null,
              usage: 0,
              is_free_tier: false,
            },
          }),
        ),
    },
    {
      method: 'GET',
      path: /^\/api\/v1\/generation$/,
      faultable: false,
      handle: (exchange) => {
        const id = exchange.url.searchParams.get('id') ?? '';
        const generation = generations.get(id);
        if (!generation)
          return exchange.send(json(404, { error: { code: 404, message: `Generation ${id} not found` } }));
        const { model, turn, at } = generation;
        return exchange.send(
          json(200, {
            data: {
              id,
              model,
              created_at: at,
              provider_name: providerName(model),
              tokens_prompt: turn.promptTokens,
              tokens_completion: turn.completionTokens + turn.parts.reasoning,
              total_cost: cost(model, turn),
              finish_reason: turn.finishReason,
            },
          }),
        );
      },
    },
  ],
});

function modelBody(model: SimModel) {
  return {
    id: model.id,
    canonical_slug: model.id,
    name: model.id,
    created: model.created,
    context_length: 128_000,
    pricing: pricing(model.id),
    architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
    supported_parameters: [
      'max_tokens',
      'temperature',
      'top_p',
      'stop',
      'tools',
      'tool_choice',
      'response_format',
      'seed',
    ],
  };
}

function invalidRequest(message: string): SimResponse {
  return json(400, { error: { code: 400, message, metadata: { error_type: 'invalid_request' } } });
}

function unknownModel(model: string): SimResponse {
  return json(400, {
    error: {
      code: 400,
      message: `${model} is not a valid model ID`,
      metadata: { error_type: 'invalid_request' },
      availability: {
        code: 'model_not_found',
        retryable: false,
        requested_models: [model],
        docs_url: 'https://openrouter.ai/models',
      },
    },
  });
}

/** Dollars per token, as strings, the way OpenRouter lists prices. */
function pricing(id: string): { prompt: string; completion: string } {
  const price = priceOf(id);
  return { prompt: String((price?.inputPerMTok ?? 0) / 1e6), completion: String((price?.outputPerMTok ?? 0) / 1e6) };
}
