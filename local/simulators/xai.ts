import { randomUUID } from 'node:crypto';
import type { SimResponse, SimulatorDefinition } from './harness.js';
import {
  catalogModels,
  defineOpenAiCompatibleSimulator,
  json,
  maskKey,
  openAiModel,
} from './openai-compatible-simulator.js';
import { openAiUsage } from './openai-wire.js';

/**
 * The xAI fake (docs/upstreams.md §4.2 and its Simulator checklist): OpenAI's chat completions
 * and stream at `/v1`, but errors as top-level strings `{code, error}` where `code` is a
 * gRPC status description. A `bad…` key gets HTTP 400 "Incorrect API key" (as observed);
 * an `invalid…` key or none gets the 401 variant.
 */

const MODELS = catalogModels('xai', () => 'xai', [
  { id: 'grok-3-mini', created: 1743724800, ownedBy: 'xai' },
  { id: 'grok-4-fast-non-reasoning', created: 1758240000, ownedBy: 'xai' },
]);

/** gRPC status descriptions, which xAI puts in `code`. */
const GRPC: Readonly<Record<number, string>> = {
  400: 'Client specified an invalid argument',
  401: 'The request does not have valid authentication credentials for the operation',
  403: 'The caller does not have permission to execute the specified operation',
  404: 'Some requested entity (e.g., file or directory) was not found',
  422: 'Client specified an invalid argument',
  429: 'Some resource has been exhausted, perhaps a per-user quota, or perhaps the entire file system is out of space.',
  500: 'Internal errors. This means that some invariants expected by the underlying system have been broken.',
  503: 'The service is currently unavailable.',
  504: 'The deadline expired before the operation could complete.',
};

const MESSAGES: Readonly<Record<number, (model: string) => string>> = {
  400: () => "This model's maximum prompt length is 256000 but the request contains 262311 tokens.",
  401: () => 'Incorrect API key provided. You can obtain an API key from https://console.x.ai.',
  403: () => 'Your team does not have permission to use this model.',
  404: (model) => `The model ${model} does not exist or your team does not have access to it.`,
  429: (model) => `Your team has exceeded its requests per minute rate limit for ${model}. Please try again in 1s.`,
  500: () => 'Service temporarily unavailable. The model did not answer.',
  503: () => 'Service temporarily unavailable. The model is overloaded.',
};

function xaiError(status: number, _variant?: string, model = 'unknown'): SimResponse {
  return json(
    status,
    {
      code: GRPC[status] ?? (status >= 500 ? GRPC[500] : GRPC[400]),
      error: MESSAGES[status]?.(model) ?? `The upstream answered ${status}.`,
    },
    status === 429 || status === 503 ? { 'retry-after': '1' } : {},
  );
}

export const xaiSimulator: SimulatorDefinition = defineOpenAiCompatibleSimulator({
  name: 'xai',
  prefix: '/v1',
  models: MODELS,
  modelVariants: false,
  publicModels: false,
  callIdPrefix: 'call_',
  answerId: () => randomUUID(),
  frame: (_model, turn) => ({
    extras: { system_fingerprint: 'fp_sim_xai' },
    finishExtras: () => ({}),
    usage: { ...openAiUsage(turn), num_sources_used: 0 },
  }),
  streamOptions: (request) => ({ includeUsage: request.stream_options?.include_usage === true, obfuscate: false }),
  headers: () => ({}),
  modelsBody: (models) => ({ object: 'list', data: models.map(openAiModel) }),
  modelBody: openAiModel,
  error: xaiError,
  invalid: (problem) => json(400, { code: GRPC[400], error: problem.message }),
  unknownModel: (model) => xaiError(404, undefined, model),
  authError: (key) =>
    key?.startsWith('bad')
      ? json(400, {
          code: GRPC[400],
          error: `Incorrect API key provided: ${maskKey(key)}. You can obtain an API key from https://console.x.ai.`,
        })
      : json(401, {
          code: GRPC[401],
          error: key
            ? `Invalid API key: ${maskKey(key)}.`
            : 'No API key provided. Send it as a Bearer token in the Authorization header.',
        }),
  streamError: (code) => ({ code: GRPC[500], error: `The model stopped answering (${code}).` }),
});
