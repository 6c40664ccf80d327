import { randomBytes, randomUUID } from 'node:crypto';
import { signatureRefusal, type StandInCredentials } from '../standins/signature-check.js';
import { toScriptInput, validateConverseRequest, type ConverseWireRequest } from './bedrock-input.js';
import { eventFrame, exceptionFrame } from './event-stream-frames.js';
import type { SimExchange, SimResponse, SimulatorDefinition } from './harness.js';
import { wholeAnswerMs } from './pacing.js';
import { runScript } from './script.js';
import type { ScriptTurn } from './script-types.js';

/**
 * The Amazon Bedrock Runtime simulator: Converse and ConverseStream (docs/upstreams.md,
 * "Amazon Bedrock").
 *
 * - `POST /model/{modelId}/converse` and `/model/{modelId}/converse-stream` (faultable; the
 *   model id URL-encoded, `:` as `%3A`). Answers a Converse JSON body, or AWS's binary event
 *   stream (`application/vnd.amazon.eventstream`, both CRCs correct; event-stream-frames.ts).
 * - Authentication is SigV4 for service `bedrock`: given the local runtime's credentials (its
 *   stand-ins' own, local/standin-credentials.ts) the signature is computed again and compared,
 *   as the AWS stand-ins do (local/standins/signature-check.ts); without them (a simulator
 *   started alone) only the Authorization header's shape and scope are checked. A refusal is
 *   403 with AWS's error name in `x-amzn-ErrorType`.
 * - Models: MODELS (foundation model ids and the inference profile ids of Claude); a Claude id
 *   without its profile prefix is refused as Bedrock refuses on-demand calls of it; anything else
 *   is a 400 ValidationException.
 * - Errors: REST-JSON, `{"message": …}` with `x-amzn-ErrorType: <Name>:http://internal.amazon.com/coral/com.amazon.bedrock/`;
 *   injected statuses (`status:<code>`) answer with the name Bedrock gives that status (ERRORS);
 *   `error:<Name>` answers with any of them by name (e.g. `error:ModelNotReadyException`).
 *
 * The stream: messageStart → text deltas (no contentBlockStart for text, as Bedrock sends) →
 * contentBlockStop → per tool call contentBlockStart (toolUse id and name), input deltas (JSON
 * cut in pieces), contentBlockStop → messageStop (stopReason) → metadata (usage, metrics).
 * Payloads carry Bedrock's `p` padding field.
 *
 * Simulator-only directive in the last user message (besides script.ts's):
 * - `[sim:stream_error=NAME]` streaming answers send an exception frame of that name (e.g.
 *   `ModelStreamErrorException`, `ThrottlingException`) right after the first delta and close;
 *   non-streaming answers get that error's status instead.
 * The usage directives are reported as Bedrock does: `inputTokens` the uncached part,
 * `cacheReadInputTokens`, `cacheWriteInputTokens` (5-minute and 1-hour writes together);
 * reasoning is inside `outputTokens`.
 */

const MODELS: ReadonlySet<string> = new Set([
  'amazon.nova-pro-v1:0',
  'amazon.nova-lite-v1:0',
  'amazon.nova-micro-v1:0',
  'us.amazon.nova-pro-v1:0',
  'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'us.meta.llama4-scout-17b-instruct-v1:0',
]);
/** Models Bedrock serves only through an inference profile. */
const PROFILE_ONLY = /^(anthropic\.claude-sonnet-4|meta\.llama4)/;

/** Bedrock's error names by status, and the statuses of the names. */
const ERRORS: Readonly<Record<number, readonly [string, string]>> = {
  400: ['ValidationException', 'Malformed input request'],
  403: ['AccessDeniedException', "You don't have access to the model with the specified model ID."],
  404: ['ResourceNotFoundException', 'Model not found'],
  408: ['ModelTimeoutException', 'Model has timed out in processing the request.'],
  424: ['ModelErrorException', 'The model produced an error.'],
  429: ['ThrottlingException', 'Too many requests, please wait before trying again.'],
  500: ['InternalServerException', 'The server encountered an internal error.'],
  503: ['ServiceUnavailableException', 'Bedrock is unable to process your request.'],
};
const EXTRA_NAMES: Readonly<Record<string, readonly [number, string]>> = {
  ModelNotReadyException: [429, 'Model is not ready to serve inference requests.'],
  ServiceQuotaExceededException: [400, 'Your request exceeds the service quota for your account.'],
  ModelStreamErrorException: [424, 'The model stream encountered an error.'],
};
const BY_NAME: Readonly<Record<string, readonly [number, string]>> = {
  ...Object.fromEntries(Object.entries(ERRORS).map(([status, [name, message]]) => [name, [Number(status), message]])),
  ...EXTRA_NAMES,
};

const STOP_REASONS: Readonly<Record<ScriptTurn['finishReason'], string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
};

const DIRECTIVE = /\[sim:([a-z_]+)(?:=([^\]]*))?\]/g;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=[^/\s]+\/\d{8}\/[a-z0-9-]+\/bedrock\/aws4_request, ?SignedHeaders=[a-z0-9;-]+, ?Signature=[0-9a-f]{64}$/;

/** The simulator; `credentials` are the ones signatures are checked against (see above). */
export function bedrockSimulator(credentials?: StandInCredentials): SimulatorDefinition {
  return {
    name: 'bedrock',
    routes: [
      {
        method: 'POST',
        path: /^\/model\/(?<model>[^/]+)\/(?<operation>converse|converse-stream)$/,
        faultable: true,
        handle: converse,
      },
    ],
    modelOf: ({ params }) => (params['model'] === undefined ? undefined : safeDecode(params['model'])),
    errorFor: (status) => {
      const [name, message] = ERRORS[status] ?? (status >= 500 ? ERRORS[500]! : ERRORS[400]!);
      return awsError(status, name, message);
    },
    namedErrors: Object.fromEntries(
      Object.entries(BY_NAME).map(([name, [status, message]]) => [name, () => awsError(status, name, message)]),
    ),
    authenticate: (exchange) => authenticate(exchange, credentials),
  };
}

async function authenticate(exchange: SimExchange, credentials: StandInCredentials | undefined) {
  const authorization = header(exchange, 'authorization');
  if (!authorization) return awsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  if (!AUTHORIZATION.test(authorization))
    return awsError(
      403,
      'IncompleteSignatureException',
      'The Authorization header is not a SigV4 signature for bedrock.',
    );
  if (!credentials) return undefined;
  const refusal = await signatureRefusal(
    {
      method: exchange.method,
      url: exchange.url.pathname + exchange.url.search,
      headers: exchange.headers,
      body: Buffer.from(exchange.rawBody),
    },
    credentials,
    Date.now(),
  );
  return refusal ? awsError(403, refusal.type, refusal.message) : undefined;
}

function awsError(status: number, name: string, message: string): SimResponse {
  const headers: Record<string, string> = {
    'x-amzn-RequestId': randomUUID(),
    'x-amzn-ErrorType': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  };
  return { status, headers, body: JSON.stringify({ message }) };
}

async function converse(exchange: SimExchange): Promise<void> {
  const model = safeDecode(exchange.params['model']!);
  if (model === undefined || !MODELS.has(model)) {
    const message =
      model !== undefined && PROFILE_ONLY.test(model)
        ? `Invocation of model ID ${model} with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.`
        : 'The provided model identifier is invalid.';
    return exchange.send(awsError(400, 'ValidationException', message));
  }
  const problem = validateConverseRequest(exchange.body);
  if (problem) return exchange.send(awsError(400, 'ValidationException', problem));
  const request = exchange.body as ConverseWireRequest;
  const input = toScriptInput(model, request);
  const turn = runScript(input);
  const streamError = directivesOf(request).get('stream_error');
  const streaming = exchange.params['operation'] === 'converse-stream';
  const answer = responseOf(turn);
  if (!streaming) {
    if (streamError) {
      const [status, message] = BY_NAME[streamError] ?? [500, 'The server encountered an internal error.'];
      return exchange.send(awsError(status, streamError, message));
    }
    return exchange.send({ status: 200, headers: okHeaders(), body: JSON.stringify(answer) }, wholeAnswerMs(turn));
  }
  const stream = await exchange.framedStream(
    'application/vnd.amazon.eventstream',
    (data, name) => (name?.startsWith('!') ? exceptionFrame(name.slice(1), data) : eventFrame(name ?? '', data)),
    okHeaders(),
    turn.pacing,
  );
  for (const [name, data, token] of streamEvents(turn, answer, streamError)) {
    const send = token ? stream.token : stream.event;
    if (!(await send(JSON.stringify(data), name))) return;
  }
  stream.end();
}

interface ConverseAnswer {
  output: { message: { role: 'assistant'; content: Record<string, unknown>[] } };
  stopReason: string;
  usage: Record<string, number>;
  metrics: { latencyMs: number };
}

function responseOf(turn: ScriptTurn): ConverseAnswer {
  const { cacheRead, cacheWrite5m, cacheWrite1h, reasoning } = turn.parts;
  const content: Record<string, unknown>[] = [];
  if (turn.text !== '') content.push({ text: turn.text });
  for (const call of turn.toolCalls)
    content.push({ toolUse: { toolUseId: `tooluse_${call.id}`, name: call.name, input: call.arguments } });
  const inputTokens = turn.promptTokens - cacheRead - cacheWrite5m - cacheWrite1h;
  const outputTokens = turn.completionTokens + reasoning;
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: STOP_REASONS[turn.finishReason],
    usage: {
      inputTokens,
      outputTokens,
      totalTokens: turn.promptTokens + outputTokens,
      cacheReadInputTokens: cacheRead,
      cacheWriteInputTokens: cacheWrite5m + cacheWrite1h,
    },
    metrics: { latencyMs: 120 },
  };
}

/** [event type (`!Name` for an exception), payload, is a token]. */
type StreamEvent = [name: string, data: Record<string, unknown>, token: boolean];

function streamEvents(turn: ScriptTurn, answer: ConverseAnswer, streamError: string | undefined): StreamEvent[] {
  const events: StreamEvent[] = [['messageStart', padded({ role: 'assistant' }), false]];
  let index = 0;
  if (turn.pieces.length > 0) {
    for (const text of turn.pieces)
      events.push(['contentBlockDelta', padded({ contentBlockIndex: 0, delta: { text } }), true]);
    events.push(['contentBlockStop', padded({ contentBlockIndex: 0 }), false]);
    index = 1;
  }
  for (const call of turn.toolCalls) {
    const start = { toolUse: { toolUseId: `tooluse_${call.id}`, name: call.name } };
    events.push(['contentBlockStart', padded({ contentBlockIndex: index, start }), false]);
    for (const input of jsonPieces(JSON.stringify(call.arguments)))
      events.push(['contentBlockDelta', padded({ contentBlockIndex: index, delta: { toolUse: { input } } }), true]);
    events.push(['contentBlockStop', padded({ contentBlockIndex: index }), false]);
    index++;
  }
  events.push(['messageStop', padded({ stopReason: answer.stopReason }), false]);
  events.push(['metadata', padded({ usage: answer.usage, metrics: answer.metrics }), false]);
  if (!streamError) return events;
  const firstDelta = events.findIndex(([name]) => name === 'contentBlockDelta');
  const kept = events.slice(0, firstDelta < 0 ? 1 : firstDelta + 1);
  const message = BY_NAME[streamError]?.[1] ?? 'The model stream encountered an error.';
  return [...kept, [`!${streamError}`, { message }, false]];
}

/** The JSON in three pieces that cut through keys or values. */
function jsonPieces(json: string): string[] {
  const third = Math.max(1, Math.floor(json.length / 3));
  return [json.slice(0, third), json.slice(third, 2 * third), json.slice(2 * third)].filter((p) => p !== '');
}

/** Bedrock pads stream payloads (`p`) so their sizes do not tell the text. */
const padded = (payload: Record<string, unknown>): Record<string, unknown> => ({
  ...payload,
  p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'.slice(0, 1 + (randomBytes(1)[0]! % 36)),
});

function directivesOf(request: ConverseWireRequest): Map<string, string> {
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const text = (lastUser?.content ?? []).map((b) => (typeof b.text === 'string' ? b.text : '')).join('');
  const directives = new Map<string, string>();
  for (const match of text.matchAll(DIRECTIVE)) directives.set(match[1]!, match[2] ?? '');
  return directives;
}

const okHeaders = (): Record<string, string> => ({ 'x-amzn-RequestId': randomUUID() });

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function header(exchange: SimExchange, name: string): string | undefined {
  const value = exchange.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
