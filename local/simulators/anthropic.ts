import { randomBytes } from 'node:crypto';
import { toScriptInput, validateMessagesRequest, type WireRequest } from './anthropic-input.js';
import type { SimExchange, SimResponse, SimulatorDefinition } from './harness.js';
import { wholeAnswerMs } from './pacing.js';
import { runScript } from './script.js';
import type { ScriptInput, ScriptTurn } from './script-types.js';

/**
 * The Anthropic Messages API simulator (docs/upstreams.md §2 and its "Anthropic fake" checklist).
 *
 * - `POST /v1/messages` (faultable): requires a key, in `x-api-key` or as
 *   `Authorization: Bearer <key>` (how the official SDK sends an API key since its 1.0, API
 *   version 2026-10-21); missing, or starting with `bad` / `invalid` → 401
 *   `authentication_error`. Requires `anthropic-version` (any value; missing → 400
 *   `invalid_request_error`); validates the body like the API (anthropic-input.ts); answers a
 *   `type:"message"` JSON body or the named-event stream.
 * - `POST /v1/messages/count_tokens`, `GET /v1/models` (paged: `limit`, `after_id`,
 *   `before_id`; `has_more`/`first_id`/`last_id`), `GET /v1/models/{id}`.
 * - Models: the ids in MODELS and their aliases (answers name the dated snapshot); any other
 *   `claude-*` id is echoed back; anything else → 404 `not_found_error`.
 * - Every answer carries `request-id`; 200s and 429s carry the `anthropic-ratelimit-*` families
 *   (RFC 3339 resets, a decrementing request counter); 429 adds `retry-after: 1`.
 * - Injected statuses (`status:<code>`) answer with Anthropic's error envelope
 *   `{type:"error", error:{type,message}, request_id}`; 502 and 503 answer an HTML proxy page,
 *   as a fronting CDN would.
 *
 * The stream: message_start → ping → per block content_block_start / deltas / stop (a second
 * ping inside the first text block) → message_delta (cumulative `output_tokens`) →
 * message_stop. Tool input streams as `input_json_delta` fragments, the first `""` and the rest
 * cut mid-string; a call without arguments streams only the `""` fragment, as the API does.
 * With `thinking` enabled a thinking block (thinking_delta, signature_delta) comes first.
 *
 * Simulator-only directives in the last user message (besides script.ts's):
 * - `[sim:stream_error=TYPE]` streaming answers send `event: error` with that error type
 *   (e.g. `overloaded_error`) right after the first content_block_delta, then close without
 *   message_stop; non-streaming answers get the matching error status instead.
 * The usage directives (usage-directives.ts) are reported as Anthropic does: cache reads in
 * `cache_read_input_tokens`, 5-minute and 1-hour writes in `cache_creation_input_tokens` and
 * its `cache_creation` breakdown, the rest in `input_tokens` (the three add up to the script's
 * prompt count); `[sim:reasoning=N]` answers with a thinking block, as thinking does, whose N
 * tokens are in `output_tokens` and `output_tokens_details.thinking_tokens` (its text is a
 * short summary, as Claude 4 models return theirs).
 */

interface ModelInfo {
  readonly id: string;
  readonly alias: string;
  readonly display_name: string;
  readonly created_at: string;
}

const MODELS: readonly ModelInfo[] = [
  {
    id: 'claude-sonnet-4-5-20250929',
    alias: 'claude-sonnet-4-5',
    display_name: 'Claude Sonnet 4.5',
    created_at: '2025-09-29T00:00:00Z',
  },
  {
    id: 'claude-haiku-4-5-20251001',
    alias: 'claude-haiku-4-5',
    display_name: 'Claude Haiku 4.5',
    created_at: '2025-10-01T00:00:00Z',
  },
  {
    id: 'claude-opus-4-1-20250805',
    alias: 'claude-opus-4-1',
    display_name: 'Claude Opus 4.1',
    created_at: '2025-08-05T00:00:00Z',
  },
  {
    id: 'claude-sonnet-4-20250514',
    alias: 'claude-sonnet-4-0',
    display_name: 'Claude Sonnet 4',
    created_at: '2025-05-14T00:00:00Z',
  },
  {
    id: 'claude-3-5-haiku-20241022',
    alias: 'claude-3-5-haiku-latest',
    display_name: 'Claude Haiku 3.5',
    created_at: '2024-10-22T00:00:00Z',
  },
];

/** status → [error.type, message]; other 4xx read as invalid_request_error, other 5xx as api_error. */
const ERRORS: Readonly<Record<number, readonly [string, string]>> = {
  400: ['invalid_request_error', 'Invalid request'],
  401: ['authentication_error', 'invalid x-api-key'],
  402: [
    'billing_error',
    'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
  ],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  500: ['api_error', 'Internal server error'],
  504: ['timeout_error', 'Request timeout'],
  529: ['overloaded_error', 'Overloaded'],
};
const STATUS_OF_ERROR: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(ERRORS).map(([status, [type]]) => [type, Number(status)]),
);
const PROXY_PAGE_STATUSES: ReadonlySet<number> = new Set([502, 503]);

const STOP_REASONS: Readonly<Record<ScriptTurn['finishReason'], string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

const DIRECTIVE = /\[sim:([a-z_]+)(?:=([^\]]*))?\]/g;
const THOUGHT = 'Let me think about what is being asked before answering.';
const REQUESTS_LIMIT = 1000;
let requestsServed = 0;

export const anthropicSimulator: SimulatorDefinition = {
  name: 'anthropic',
  routes: [
    { method: 'POST', path: /^\/v1\/messages$/, faultable: true, handle: createMessage },
    { method: 'POST', path: /^\/v1\/messages\/count_tokens$/, faultable: false, handle: countTokens },
    { method: 'GET', path: /^\/v1\/models$/, faultable: false, handle: listModels },
    { method: 'GET', path: /^\/v1\/models\/(?<id>[^/]+)$/, faultable: false, handle: getModel },
  ],
  modelOf: ({ body, params }) =>
    params['id'] ??
    (typeof (body as { model?: unknown } | undefined)?.model === 'string'
      ? (body as { model: string }).model
      : undefined),
  errorFor: (status, exchange) => errorFor(status, exchange),
  authenticate(exchange) {
    const key = header(exchange, 'x-api-key') ?? bearerOf(header(exchange, 'authorization'));
    if (!key || key.startsWith('bad') || key.startsWith('invalid'))
      return apiError(401, 'authentication_error', 'invalid x-api-key');
    // Not a credential, but checked at the same gate, before anything else is read.
    if (!header(exchange, 'anthropic-version'))
      return apiError(400, 'invalid_request_error', 'anthropic-version: header is required');
    return undefined;
  },
};

function errorFor(status: number, exchange: SimExchange): SimResponse {
  if (PROXY_PAGE_STATUSES.has(status)) {
    return {
      status,
      headers: { 'Content-Type': 'text/html', 'request-id': requestId() },
      body: `<html><head><title>${status}</title></head><body><center><h1>${status} Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>`,
    };
  }
  const [type, message] =
    ERRORS[status] ??
    (status >= 500 ? ['api_error', 'Internal server error'] : ['invalid_request_error', 'Invalid request']);
  const model = anthropicSimulator.modelOf(exchange);
  return apiError(status, type, status === 404 && model ? `model: ${model}` : message);
}

function apiError(status: number, type: string, message: string): SimResponse {
  const id = requestId();
  const headers: Record<string, string> = { 'request-id': id };
  if (status === 429) Object.assign(headers, { 'retry-after': '1' }, rateLimitHeaders(0));
  if (status === 529) headers['x-should-retry'] = 'true';
  return { status, headers, body: JSON.stringify({ type: 'error', error: { type, message }, request_id: id }) };
}

async function createMessage(exchange: SimExchange): Promise<void> {
  const problem = validateMessagesRequest(exchange.body);
  if (problem) return exchange.send(apiError(400, 'invalid_request_error', problem));
  const request = exchange.body as WireRequest;
  const model = resolveModel(request.model);
  if (!model) return exchange.send(apiError(404, 'not_found_error', `model: ${request.model}`));
  const input = toScriptInput(request);
  const directives = directivesOf(input);
  const turn = runScript(input);
  const message = buildMessage(request, model, input, turn);
  const streamError = directives.get('stream_error');
  if (!request.stream) {
    if (streamError)
      return exchange.send(apiError(STATUS_OF_ERROR[streamError] ?? 500, streamError, errorMessage(streamError)));
    return exchange.send({ status: 200, headers: okHeaders(), body: JSON.stringify(message) }, wholeAnswerMs(turn));
  }
  const stream = await exchange.stream(okHeaders(), turn.pacing);
  for (const [name, data] of streamEvents(message, streamError)) {
    // Each content delta is a token of the answer, paced as one.
    const send = name === 'content_block_delta' ? stream.token : stream.event;
    if (!(await send(JSON.stringify(data), name))) return;
  }
  stream.end();
}

interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Record<string, unknown>[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    output_tokens_details?: { thinking_tokens: number };
    service_tier: string;
  };
}

function buildMessage(request: WireRequest, model: string, input: ScriptInput, turn: ScriptTurn): Message {
  const content: Record<string, unknown>[] = [];
  const { cacheRead, cacheWrite5m, cacheWrite1h, reasoning } = turn.parts;
  const asked = request.thinking?.type === 'enabled' || request.thinking?.type === 'adaptive';
  const thinkingTokens = reasoning > 0 ? reasoning : asked ? tokensOf(THOUGHT) : 0;
  if (thinkingTokens > 0)
    content.push({ type: 'thinking', thinking: THOUGHT, signature: randomBytes(24).toString('base64') });
  if (turn.text !== '') content.push({ type: 'text', text: turn.text });
  for (const call of turn.toolCalls)
    content.push({ type: 'tool_use', id: `toolu_${call.id}`, name: call.name, input: call.arguments });
  const stopSequence = stopSequenceHit(input, turn);
  return {
    id: `msg_01Sim${randomBytes(9).toString('base64url')}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopSequence !== undefined ? 'stop_sequence' : STOP_REASONS[turn.finishReason],
    stop_sequence: stopSequence ?? null,
    usage: {
      input_tokens: turn.promptTokens - cacheRead - cacheWrite5m - cacheWrite1h,
      // Thinking is billed as output.
      output_tokens: turn.completionTokens + thinkingTokens,
      cache_creation_input_tokens: cacheWrite5m + cacheWrite1h,
      cache_read_input_tokens: cacheRead,
      cache_creation: { ephemeral_5m_input_tokens: cacheWrite5m, ephemeral_1h_input_tokens: cacheWrite1h },
      ...(thinkingTokens > 0 ? { output_tokens_details: { thinking_tokens: thinkingTokens } } : {}),
      service_tier: 'standard',
    },
  };
}

type StreamEvent = [name: string, data: Record<string, unknown>];

/** The whole event sequence of one streamed message; cut after the first delta for stream_error. */
function streamEvents(message: Message, streamError: string | undefined): StreamEvent[] {
  // Input and cache counts are known at the start; output (thinking included) runs to message_delta.
  const { output_tokens_details: thinking, ...startUsage } = message.usage;
  const events: StreamEvent[] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...startUsage, output_tokens: 1 },
        },
      },
    ],
    ['ping', { type: 'ping' }],
  ];
  message.content.forEach((block, index) => {
    const deltas = blockDeltas(block);
    const start =
      block['type'] === 'tool_use'
        ? { ...block, input: {} }
        : block['type'] === 'text'
          ? { type: 'text', text: '' }
          : { type: 'thinking', thinking: '', signature: '' };
    events.push(['content_block_start', { type: 'content_block_start', index, content_block: start }]);
    deltas.forEach((delta, i) => {
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta }]);
      if (i === 1 && block['type'] === 'text') events.push(['ping', { type: 'ping' }]);
    });
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  events.push(
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
        usage: { output_tokens: message.usage.output_tokens, ...(thinking ? { output_tokens_details: thinking } : {}) },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  );
  if (!streamError) return events;
  const firstDelta = events.findIndex(([name]) => name === 'content_block_delta');
  const kept = firstDelta < 0 ? events.slice(0, 2) : events.slice(0, firstDelta + 1);
  return [...kept, ['error', { type: 'error', error: { type: streamError, message: errorMessage(streamError) } }]];
}

function blockDeltas(block: Record<string, unknown>): Record<string, unknown>[] {
  switch (block['type']) {
    case 'text':
      return splitWords(block['text'] as string).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [
        ...splitWords(block['thinking'] as string).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature: block['signature'] },
      ];
    default:
      return jsonFragments(JSON.stringify(block['input'])).map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
  }
}

/** `""` first, then the JSON in three cuts that land inside keys or values, never whole. */
function jsonFragments(json: string): string[] {
  if (json === '{}') return [''];
  const third = Math.max(1, Math.floor(json.length / 3));
  return ['', json.slice(0, third + 2), json.slice(third + 2, 2 * third + 1), json.slice(2 * third + 1)].filter(
    (f, i) => i === 0 || f !== '',
  );
}

const splitWords = (text: string): string[] => text.match(/\s*\S+|\s+$/g) ?? [];

/** When the answer ended on a stop sequence, the sequence (the API reports which one). */
function stopSequenceHit(input: ScriptInput, turn: ScriptTurn): string | undefined {
  if (turn.finishReason !== 'stop' || !input.stop?.length || turn.toolCalls.length > 0) return undefined;
  const full = runScript({ ...input, stop: undefined, maxTokens: undefined }).text;
  const rest = full.slice(turn.text.length);
  if (!full.startsWith(turn.text) || rest === '') return undefined;
  return input.stop.find((stop) => stop !== '' && rest.startsWith(stop));
}

async function countTokens(exchange: SimExchange): Promise<void> {
  const body = { max_tokens: 1, ...(exchange.body as object) };
  const problem = validateMessagesRequest(body);
  if (problem) return exchange.send(apiError(400, 'invalid_request_error', problem));
  const { promptTokens } = runScript(toScriptInput(body as WireRequest));
  return exchange.send({
    status: 200,
    headers: { 'request-id': requestId() },
    body: JSON.stringify({ input_tokens: promptTokens }),
  });
}

async function listModels(exchange: SimExchange): Promise<void> {
  const limit = Math.min(1000, Math.max(1, Number(exchange.url.searchParams.get('limit') ?? 20) || 20));
  const after = exchange.url.searchParams.get('after_id');
  const before = exchange.url.searchParams.get('before_id');
  let models = [...MODELS];
  if (after) models = models.slice(models.findIndex((m) => m.id === after) + 1);
  if (before)
    models = models.slice(
      0,
      Math.max(
        0,
        models.findIndex((m) => m.id === before),
      ),
    );
  const page = before ? models.slice(-limit) : models.slice(0, limit);
  const body = {
    data: page.map(modelEntry),
    has_more: page.length < models.length,
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
  };
  return exchange.send({ status: 200, headers: { 'request-id': requestId() }, body: JSON.stringify(body) });
}

async function getModel(exchange: SimExchange): Promise<void> {
  const model = MODELS.find((m) => m.id === exchange.params['id'] || m.alias === exchange.params['id']);
  if (!model) return exchange.send(apiError(404, 'not_found_error', `model: ${exchange.params['id']}`));
  return exchange.send({
    status: 200,
    headers: { 'request-id': requestId() },
    body: JSON.stringify(modelEntry(model)),
  });
}

const modelEntry = (m: ModelInfo) => ({
  type: 'model',
  id: m.id,
  display_name: m.display_name,
  created_at: m.created_at,
});

function resolveModel(id: string): string | undefined {
  const known = MODELS.find((m) => m.id === id || m.alias === id);
  if (known) return known.id;
  return id.startsWith('claude-') ? id : undefined;
}

function okHeaders(): Record<string, string> {
  requestsServed++;
  return {
    'request-id': requestId(),
    'anthropic-organization-id': '00000000-0000-4000-8000-00000000a11e',
    ...rateLimitHeaders(REQUESTS_LIMIT - (requestsServed % REQUESTS_LIMIT)),
  };
}

function rateLimitHeaders(requestsRemaining: number): Record<string, string> {
  const reset = new Date(Math.ceil((Date.now() + 1) / 60_000) * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const headers: Record<string, string> = {
    'anthropic-ratelimit-requests-limit': String(REQUESTS_LIMIT),
    'anthropic-ratelimit-requests-remaining': String(requestsRemaining),
    'anthropic-ratelimit-requests-reset': reset,
  };
  const budgets: [string, number][] = [
    ['tokens', 96_000],
    ['input-tokens', 80_000],
    ['output-tokens', 16_000],
  ];
  for (const [family, limit] of budgets) {
    headers[`anthropic-ratelimit-${family}-limit`] = String(limit);
    headers[`anthropic-ratelimit-${family}-remaining`] = String(requestsRemaining === 0 ? 0 : limit);
    headers[`anthropic-ratelimit-${family}-reset`] = reset;
  }
  return headers;
}

function directivesOf(input: ScriptInput): Map<string, string> {
  const lastUser = [...input.messages].reverse().find((m) => m.role === 'user');
  const directives = new Map<string, string>();
  for (const match of (lastUser?.text ?? '').matchAll(DIRECTIVE)) directives.set(match[1]!, match[2] ?? '');
  return directives;
}

const errorMessage = (type: string): string =>
  Object.values(ERRORS).find(([t]) => t === type)?.[1] ?? 'Internal server error';
const tokensOf = (text: string): number => splitWords(text).length;
const requestId = (): string => `req_011CSim${randomBytes(12).toString('base64url')}`;

/** The key of an `Authorization: Bearer <key>` header, as the official SDK (1.x) sends it. */
function bearerOf(value: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(value ?? '');
  return match?.[1];
}

function header(exchange: SimExchange, name: string): string | undefined {
  const value = exchange.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
