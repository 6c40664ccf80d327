import { randomBytes } from 'node:crypto';
import { FAMILIES } from '../../lambdas/catalog/model-catalog.js';
import { toScriptInput, validateGenerateRequest, isRecord, type WireRequest } from './gemini-input.js';
import {
  API_KEY_INVALID,
  OK_JSON_HEADERS,
  STATUS_BY_RPC,
  UNREGISTERED_CALLER,
  badRequest,
  buildAnswer,
  errorEnvelope,
  errorResponse,
  frontEndPage,
  jsonArray,
  type Json,
} from './gemini-output.js';
import { batchEmbed, embedContent } from './gemini-embeddings.js';
import type { SimExchange, SimResponse, SimulatorDefinition } from './harness.js';
import type { RequestFaults } from './faults.js';
import { isPaced, wholeAnswerMs } from './pacing.js';
import { runScript } from './script.js';
import type { ScriptInput } from './script-types.js';

/**
 * The Gemini Developer API simulator, native format (docs/upstreams.md §3 and its "Gemini fake"
 * checklist). The API lives under `/v1beta`.
 *
 * - `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (faultable):
 *   with `alt=sse` an SSE stream, each event a whole GenerateContentResponse holding only the
 *   new text piece (partial `usageMetadata` until the last event, which carries finishReason
 *   and the full counts), no `[DONE]`, events separated by `\r\n\r\n`; without `alt=sse` one
 *   JSON array of those responses. functionCall parts come whole, in one event, with object
 *   `args`, an `id` and (first call) a `thoughtSignature`.
 * - `POST …:batchEmbedContents` and `:embedContent` (faultable; gemini-embeddings.ts): deterministic
 *   vectors for `gemini-embedding-001` and `text-embedding-004`.
 * - `POST …:countTokens`, `GET /v1beta/models` (`pageSize`, `pageToken` → `nextPageToken`),
 *   `GET /v1beta/models/{model}`.
 * - Key via `x-goog-api-key` or `?key=`: missing → 403 PERMISSION_DENIED (unregistered caller);
 *   starting with `bad` / `invalid` → 400 INVALID_ARGUMENT with ErrorInfo `API_KEY_INVALID`.
 * - Bodies are validated like the API (gemini-input.ts, camelCase only) → 400 INVALID_ARGUMENT
 *   with a BadRequest detail; an unknown model → 404 NOT_FOUND.
 * - `toolConfig.functionCallingConfig.mode`: ANY always calls (within allowedFunctionNames),
 *   NONE never does, AUTO/VALIDATED follow the script's directives.
 * - Injected statuses answer Google's envelope `{error:{code,message,status,details[]}}`
 *   (429 RESOURCE_EXHAUSTED with QuotaFailure + RetryInfo `"2s"` and `retry-after: 2`;
 *   503 UNAVAILABLE "The model is overloaded…"); 502 answers the front end's HTML page. On the
 *   array stream form errors are wrapped: `[{"error":{…}}]`.
 *
 * Framing and the harness: the harness's event writer ends events with `\n\n` and offers no
 * other separator or raw write, so a stream answer is written as one pre-framed `\r\n\r\n` body
 * unless the request drew a per-event fault (`reset_after_chunks`, `malformed_chunk`,
 * `delay_first_token`), in which case it goes through the harness's event writer (`\n\n`) so
 * the fault hits the event it names. The array form is always one body (faults apply to it whole).
 *
 * Simulator-only directives in the last user message (besides script.ts's):
 * - `[sim:finish=REASON]` with an upper-case Gemini reason (`RECITATION`, `OTHER`,
 *   `MALFORMED_FUNCTION_CALL`, …) ends with that reason; only STOP and MAX_TOKENS keep content
 *   (the script's `length` / `content_filter` map to MAX_TOKENS / SAFETY).
 * - `[sim:block=REASON]` blocks the prompt: 200 with no candidates and `promptFeedback.blockReason`
 *   (default SAFETY).
 * - `[sim:no_call_ids]` functionCall parts carry no `id`, as older models answer.
 * - The usage directives (usage-directives.ts): `[sim:cache_read=N]` is reported as
 *   `cachedContentTokenCount` (inside `promptTokenCount`), `[sim:reasoning=N]` as
 *   `thoughtsTokenCount` (outside `candidatesTokenCount`, inside `totalTokenCount`); cache
 *   writes are not reported per request.
 * - `[sim:stream_error=STATUS]` (HTTP code or google.rpc status, default 503) streaming answers
 *   send at most one content event, then a `{"error":{…}}` event, and end without finishReason;
 *   non-streaming answers get that error status instead.
 */

interface ModelInfo {
  readonly id: string;
  readonly displayName: string;
  readonly inputTokenLimit: number;
  readonly outputTokenLimit: number;
  readonly thinking: boolean;
}

const STATIC_MODELS: readonly ModelInfo[] = [
  {
    id: 'gemini-2.5-pro',
    displayName: 'Gemini 2.5 Pro',
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    thinking: true,
  },
  {
    id: 'gemini-2.5-flash',
    displayName: 'Gemini 2.5 Flash',
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    thinking: true,
  },
  {
    id: 'gemini-2.5-flash-lite',
    displayName: 'Gemini 2.5 Flash-Lite',
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    thinking: true,
  },
  {
    id: 'gemini-2.0-flash',
    displayName: 'Gemini 2.0 Flash',
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 8_192,
    thinking: false,
  },
];

/** Every Google model the catalog routes to is served, even one added after this list. */
const MODELS: readonly ModelInfo[] = [
  ...STATIC_MODELS,
  ...[...new Set(FAMILIES.flatMap((f) => f.routes.filter((r) => r.provider === 'google').map((r) => r.model)))]
    .filter((id) => !STATIC_MODELS.some((m) => m.id === id))
    .map((id) => ({ id, displayName: id, inputTokenLimit: 1_048_576, outputTokenLimit: 65_536, thinking: true })),
];

const DIRECTIVE = /\[sim:([a-z_]+)(?:=([^\]]*))?\]/g;
const GEMINI_REASON = /^[A-Z][A-Z_]*$/;
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
};
const MODEL_PATH = '(?<model>[^/:]+)';

export const geminiSimulator: SimulatorDefinition = {
  name: 'gemini',
  routes: [
    {
      method: 'POST',
      path: new RegExp(`^/v1beta/models/${MODEL_PATH}:generateContent$`),
      faultable: true,
      handle: (ex) => generate(ex, 'json'),
    },
    {
      method: 'POST',
      path: new RegExp(`^/v1beta/models/${MODEL_PATH}:streamGenerateContent$`),
      faultable: true,
      handle: (ex) => generate(ex, ex.url.searchParams.get('alt') === 'sse' ? 'sse' : 'array'),
    },
    {
      method: 'POST',
      path: new RegExp(`^/v1beta/models/${MODEL_PATH}:batchEmbedContents$`),
      faultable: true,
      handle: (ex) => batchEmbed(ex, modelParam(ex.params)!),
    },
    {
      method: 'POST',
      path: new RegExp(`^/v1beta/models/${MODEL_PATH}:embedContent$`),
      faultable: true,
      handle: (ex) => embedContent(ex, modelParam(ex.params)!),
    },
    {
      method: 'POST',
      path: new RegExp(`^/v1beta/models/${MODEL_PATH}:countTokens$`),
      faultable: false,
      handle: countTokens,
    },
    { method: 'GET', path: /^\/v1beta\/models$/, faultable: false, handle: listModels },
    { method: 'GET', path: new RegExp(`^/v1beta/models/${MODEL_PATH}$`), faultable: false, handle: getModel },
  ],
  modelOf: ({ params }) => modelParam(params),
  errorFor(status, exchange) {
    if (status === 502) return frontEndPage(status);
    return errorResponse(errorEnvelope(status, modelParam(exchange.params)), wrapsErrors(exchange));
  },
  authenticate(exchange) {
    const header = exchange.headers['x-goog-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) || exchange.url.searchParams.get('key');
    if (!key) return errorResponse(UNREGISTERED_CALLER, wrapsErrors(exchange));
    if (key.startsWith('bad') || key.startsWith('invalid'))
      return errorResponse(API_KEY_INVALID, wrapsErrors(exchange));
    return undefined;
  },
};

type Mode = 'json' | 'sse' | 'array';

async function generate(exchange: SimExchange, mode: Mode): Promise<void> {
  const model = modelParam(exchange.params)!;
  const wrapped = mode === 'array';
  const problem = validateGenerateRequest(exchange.body);
  if (problem) return exchange.send(errorResponse(badRequest(problem), wrapped));
  if (!MODELS.some((m) => m.id === model)) return exchange.send(errorResponse(errorEnvelope(404, model), wrapped));

  const input = toScriptInput(model, exchange.body as WireRequest);
  const directives = directivesOf(input);
  const forced = directives.get('finish');
  const turn = runScript(input);
  const answer = buildAnswer(turn, {
    model,
    responseId: randomBytes(9).toString('base64url'),
    ...(forced !== undefined && GEMINI_REASON.test(forced) ? { finishReason: forced } : {}),
    ...(directives.has('block') ? { blockReason: directives.get('block') || 'SAFETY' } : {}),
    omitCallIds: directives.has('no_call_ids'),
  });

  const streamError = directives.has('stream_error')
    ? errorEnvelope(errorStatus(directives.get('stream_error')!), model)
    : undefined;
  if (mode === 'json') {
    if (streamError) return exchange.send(errorResponse(streamError, false));
    return exchange.send(
      { status: 200, headers: OK_JSON_HEADERS, body: JSON.stringify(answer.whole, null, 2) },
      wholeAnswerMs(turn),
    );
  }
  // An in-band error cuts the answer before its finishing event.
  const events = streamError
    ? [...answer.events.slice(0, Math.min(1, answer.events.length - 1)), streamError]
    : answer.events;
  if (mode === 'array')
    return exchange.send({ status: 200, headers: OK_JSON_HEADERS, body: jsonArray(events) }, wholeAnswerMs(turn));
  if (!perEventFault(exchange.faults) && !isPaced(turn.pacing)) {
    return exchange.send({
      status: 200,
      headers: SSE_HEADERS,
      body: events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join(''),
    });
  }
  // Every event of an answer carries one of its pieces: each is paced as a token.
  const stream = await exchange.stream(SSE_HEADERS, turn.pacing);
  for (const event of events) if (!(await stream.token(JSON.stringify(event)))) return;
  stream.end();
}

function perEventFault(faults: RequestFaults): boolean {
  return (
    faults.resetAfterChunks !== undefined ||
    faults.malformedIndex !== undefined ||
    faults.delayFirstTokenMs !== undefined
  );
}

/** `503` or `UNAVAILABLE` → 503; anything else unreadable → 503, the usual mid-stream failure. */
function errorStatus(value: string): number {
  const code = Number(value);
  if (Number.isInteger(code) && code >= 400 && code <= 599) return code;
  return STATUS_BY_RPC[value] ?? 503;
}

async function countTokens(exchange: SimExchange): Promise<void> {
  const model = modelParam(exchange.params)!;
  const body =
    isRecord(exchange.body) && isRecord(exchange.body['generateContentRequest'])
      ? exchange.body['generateContentRequest']
      : exchange.body;
  const request = isRecord(body)
    ? {
        contents: body['contents'],
        ...(body['systemInstruction'] ? { systemInstruction: body['systemInstruction'] } : {}),
      }
    : body;
  const problem = validateGenerateRequest(request);
  if (problem) return exchange.send(errorResponse(badRequest(problem), false));
  if (!MODELS.some((m) => m.id === model)) return exchange.send(errorResponse(errorEnvelope(404, model), false));
  const tokens = runScript({
    ...toScriptInput(model, request as WireRequest),
    tools: [],
    toolChoice: 'none',
  }).promptTokens;
  return sendJson(exchange, { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] });
}

async function listModels(exchange: SimExchange): Promise<void> {
  const size = Math.min(1000, Math.max(1, Number(exchange.url.searchParams.get('pageSize')) || 50));
  const start = Number(exchange.url.searchParams.get('pageToken') ?? '0');
  if (!Number.isInteger(start) || start < 0 || start > MODELS.length) {
    return exchange.send(errorResponse(badRequest('Invalid page token.'), false));
  }
  const page = MODELS.slice(start, start + size);
  const next = start + size < MODELS.length ? { nextPageToken: String(start + size) } : {};
  return sendJson(exchange, { models: page.map(modelResource), ...next });
}

async function getModel(exchange: SimExchange): Promise<void> {
  const model = MODELS.find((m) => m.id === modelParam(exchange.params));
  if (!model) return exchange.send(errorResponse(errorEnvelope(404, modelParam(exchange.params)), false));
  return sendJson(exchange, modelResource(model));
}

function modelResource(model: ModelInfo): Json {
  return {
    name: `models/${model.id}`,
    version: '001',
    displayName: model.displayName,
    description: `Simulated ${model.displayName}`,
    inputTokenLimit: model.inputTokenLimit,
    outputTokenLimit: model.outputTokenLimit,
    supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
    temperature: 1,
    maxTemperature: 2,
    topP: 0.95,
    topK: 64,
    ...(model.thinking ? { thinking: true } : {}),
  };
}

function sendJson(exchange: SimExchange, body: Json): Promise<void> {
  return exchange.send({
    status: 200,
    headers: OK_JSON_HEADERS,
    body: JSON.stringify(body, null, 2),
  } satisfies SimResponse);
}

function modelParam(params: Record<string, string>): string | undefined {
  const model = params['model'];
  return model === undefined ? undefined : decodeURIComponent(model);
}

/** The array stream form wraps errors in an array. */
function wrapsErrors(exchange: Pick<SimExchange, 'url'>): boolean {
  return exchange.url.pathname.endsWith(':streamGenerateContent') && exchange.url.searchParams.get('alt') !== 'sse';
}

/** Directives in the last user message (the script reads the same ones). */
function directivesOf(input: ScriptInput): Map<string, string> {
  const lastUser = [...input.messages].reverse().find((m) => m.role === 'user');
  const directives = new Map<string, string>();
  for (const match of (lastUser?.text ?? '').matchAll(DIRECTIVE)) directives.set(match[1]!, match[2] ?? '');
  return directives;
}
