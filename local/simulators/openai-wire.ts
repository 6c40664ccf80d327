import { randomBytes } from 'node:crypto';
import { samplingOf } from './sampling.js';
import type { ScriptInput, ScriptMessage, ScriptToolChoice, ScriptTurn } from './script-types.js';

/**
 * The OpenAI chat-completions wire format as the OpenAI-compatible simulators speak it
 * (docs/upstreams.md §1.3–§1.7): request checks, the request → script conversion, and the
 * encoding of a script turn as a `chat.completion` body or a `chat.completion.chunk` stream.
 */

export interface WireRequest {
  model: string;
  messages: WireMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean; include_obfuscation?: boolean } | null;
  tools?: { type?: string; function?: { name?: string; parameters?: Record<string, unknown> } }[];
  tool_choice?: 'none' | 'auto' | 'required' | { type?: string; function?: { name?: string } };
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  temperature?: number | null;
  seed?: number | null;
}

interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string } }[];
  tool_call_id?: string;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export interface WireProblem {
  readonly message: string;
  readonly param: string | null;
  readonly code: string | null;
}

/** The first reason the upstream would refuse the request with a 400; undefined when valid. */
export function validateChatRequest(body: unknown): WireProblem | undefined {
  if (!isObject(body)) return { message: 'We could not parse the JSON body of your request.', param: null, code: null };
  if (typeof body['model'] !== 'string' || body['model'] === '') {
    return { message: 'you must provide a model parameter', param: 'model', code: 'missing_required_parameter' };
  }
  const messages = body['messages'];
  if (messages === undefined)
    return {
      message: "Missing required parameter: 'messages'.",
      param: 'messages',
      code: 'missing_required_parameter',
    };
  if (!Array.isArray(messages) || messages.length === 0) {
    return {
      message: "Invalid 'messages': empty array. Expected an array with minimum length 1.",
      param: 'messages',
      code: 'empty_array',
    };
  }
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || typeof message['role'] !== 'string' || !ROLES.has(message['role'])) {
      return {
        message: `Invalid value for 'messages[${i}].role'.`,
        param: `messages[${i}].role`,
        code: 'invalid_value',
      };
    }
  }
  return undefined;
}

export function scriptInputOf(request: WireRequest): ScriptInput {
  const toolNames = new Map<string, string>();
  const messages = request.messages.map((message): ScriptMessage => {
    for (const call of message.tool_calls ?? [])
      if (call.id && call.function?.name) toolNames.set(call.id, call.function.name);
    const role =
      message.role === 'developer'
        ? 'system'
        : message.role === 'function'
          ? 'tool'
          : (message.role as ScriptMessage['role']);
    const parts = Array.isArray(message.content) ? (message.content as unknown[]).filter(isObject) : [];
    const text =
      typeof message.content === 'string'
        ? message.content
        : parts.map((p) => (typeof p['text'] === 'string' ? p['text'] : '')).join('');
    const toolName = message.tool_call_id ? toolNames.get(message.tool_call_id) : undefined;
    return {
      role,
      text,
      images: parts.filter((p) => p['type'] === 'image_url').length,
      ...(toolName ? { toolName } : {}),
    };
  });
  const tools = (request.tools ?? [])
    .filter((tool) => (tool.type ?? 'function') === 'function' && typeof tool.function?.name === 'string')
    .map((tool) => ({
      name: tool.function!.name!,
      ...(tool.function!.parameters ? { parameters: tool.function!.parameters } : {}),
    }));
  const limit = request.max_completion_tokens ?? request.max_tokens;
  const stop =
    typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop : undefined;
  return {
    model: request.model,
    messages,
    tools,
    toolChoice: toolChoiceOf(request.tool_choice),
    ...(typeof limit === 'number' ? { maxTokens: limit } : {}),
    ...(stop ? { stop } : {}),
    ...samplingOf(request.temperature, request.seed),
  };
}

function toolChoiceOf(choice: WireRequest['tool_choice']): ScriptToolChoice {
  if (choice === 'none' || choice === 'required' || choice === 'auto') return choice;
  const name = isObject(choice) ? choice.function?.name : undefined;
  return name ? { name } : 'auto';
}

/** A directive of the last user message, including the simulator-only ones the script ignores. */
export function directiveOf(input: ScriptInput, name: string): string | undefined {
  const lastUser = [...input.messages].reverse().find((m) => m.role === 'user');
  for (const match of (lastUser?.text ?? '').matchAll(/\[sim:([a-z_]+)(?:=([^\]]*))?\]/g))
    if (match[1] === name) return match[2] ?? '';
  return undefined;
}

/** What every body and chunk of one answer shares. */
export interface AnswerFrame {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  /** The tool-call id prefix: the script's ids are bare. */
  readonly callIdPrefix: string;
  /** Top-level fields on the body and on every chunk (OpenAI's `system_fingerprint`, OpenRouter's `provider`). */
  readonly extras: Record<string, unknown>;
  /** Fields next to a choice's finish reason (OpenRouter's `native_finish_reason`). */
  finishExtras(finish: string): Record<string, unknown>;
  /** The `usage` object, OpenAI fields plus the upstream's own. */
  readonly usage: Record<string, unknown>;
}

/**
 * OpenAI's usage: cache reads are part of `prompt_tokens` (writes are not reported: OpenAI's
 * cache costs nothing extra to write), reasoning part of `completion_tokens`.
 */
export function openAiUsage(turn: ScriptTurn): Record<string, unknown> {
  const completion = turn.completionTokens + turn.parts.reasoning;
  return {
    prompt_tokens: turn.promptTokens,
    completion_tokens: completion,
    total_tokens: turn.promptTokens + completion,
    prompt_tokens_details: { cached_tokens: turn.parts.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: turn.parts.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function completionBody(turn: ScriptTurn, frame: AnswerFrame): Record<string, unknown> {
  const toolCalls = turn.toolCalls.map((call) => ({
    id: frame.callIdPrefix + call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return {
    id: frame.id,
    object: 'chat.completion',
    created: frame.created,
    model: frame.model,
    ...frame.extras,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: toolCalls.length > 0 ? null : turn.text,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: turn.finishReason,
        ...frame.finishExtras(turn.finishReason),
      },
    ],
    usage: frame.usage,
  };
}

export interface StreamOptions {
  /** `usage: null` on every chunk and a final `choices: []` chunk with the usage. */
  readonly includeUsage: boolean;
  /** OpenAI's random `obfuscation` padding on every chunk. */
  readonly obfuscate: boolean;
}

/**
 * The chunks of a streamed answer, in order, without the closing `[DONE]`: a role chunk,
 * one chunk per text piece, tool-call fragments (each call's first fragment carries id, type,
 * name and `arguments: ""`; parallel calls interleave), a `delta: {}` chunk with the finish
 * reason, and the usage chunk when asked for.
 */
export function streamChunks(turn: ScriptTurn, frame: AnswerFrame, options: StreamOptions): Record<string, unknown>[] {
  const chunk = (choices: unknown[], usage: unknown = null): Record<string, unknown> => ({
    id: frame.id,
    object: 'chat.completion.chunk',
    created: frame.created,
    model: frame.model,
    ...frame.extras,
    choices,
    ...(options.includeUsage ? { usage } : {}),
    ...(options.obfuscate ? { obfuscation: randomBytes(3).toString('base64url') } : {}),
  });
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
    ...(finish ? frame.finishExtras(finish) : {}),
  });
  const tools = turn.toolCalls.length > 0;
  const chunks = [chunk([choice({ role: 'assistant', content: tools ? null : '', refusal: null })])];
  for (const piece of turn.pieces) chunks.push(chunk([choice({ content: piece })]));
  for (const fragment of toolFragments(turn, frame.callIdPrefix))
    chunks.push(chunk([choice({ tool_calls: [fragment] })]));
  chunks.push(chunk([choice({}, turn.finishReason)]));
  if (options.includeUsage) chunks.push(chunk([], frame.usage));
  return chunks;
}

/** A chunk that carries generated output (text or a tool-call fragment): a paced stream's token. */
export function carriesToken(chunk: Record<string, unknown>): boolean {
  const choices = chunk['choices'] as { delta?: { content?: unknown; tool_calls?: unknown } }[] | undefined;
  const delta = choices?.[0]?.delta;
  return Boolean(delta?.content) || delta?.tool_calls !== undefined;
}

/** Round-robin over the calls, so two or more parallel calls interleave by index. */
function toolFragments(turn: ScriptTurn, prefix: string): Record<string, unknown>[] {
  const perCall = turn.toolCalls.map((call, index) => [
    { index, id: prefix + call.id, type: 'function', function: { name: call.name, arguments: '' } },
    ...splitInThree(JSON.stringify(call.arguments)).map((piece) => ({ index, function: { arguments: piece } })),
  ]);
  const longest = Math.max(0, ...perCall.map((fragments) => fragments.length));
  const fragments: Record<string, unknown>[] = [];
  for (let step = 0; step < longest; step++)
    for (const call of perCall) if (step < call.length) fragments.push(call[step]!);
  return fragments;
}

function splitInThree(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

export const randomId = (bytes = 12): string => randomBytes(bytes).toString('hex');
