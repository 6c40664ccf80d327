import { UpstreamError } from '../upstream-failure.js';
import type { ChatAdapter } from '../chat-adapter.js';
import { classifyHttpError, classifyInBandError } from './openai-compatible-errors.js';
import { quirksFor, type OpenAiCompatibleQuirks } from './openai-compatible-quirks.js';
import { OpenAiStreamTranslator } from './openai-compatible-stream.js';
import { finishReasonOf, isObject, malformed, mapUsage, syntheticCallId, text } from './openai-compatible-wire.js';
import type { ChatCompletion, ChatRequest, ToolCall } from '../chat-types.js';

/**
 * OpenAI, xAI and OpenRouter (docs/upstreams.md §1, §4): the canonical request is already this
 * wire format, so the work is in the edges: usage in streams, tool-call fragments, the
 * errors each upstream reports in its own way (see the quirks table).
 */
export const openAiCompatibleAdapter: ChatAdapter = {
  wireFormat: 'openai-compatible',

  buildRequest(request, target, stream) {
    const quirks = quirksFor(target.provider);
    return {
      url: `${target.baseUrl}/chat/completions`,
      headers: {
        Authorization: `Bearer ${target.apiKey}`,
        'Content-Type': 'application/json',
        Accept: stream ? 'text/event-stream' : 'application/json',
        ...quirks.headers,
      },
      body: JSON.stringify(requestBody(request, target.model, stream, quirks)),
    };
  },

  parseResponse(body, target) {
    const quirks = quirksFor(target.provider);
    if (!isObject(body)) throw malformed('the answer is not a JSON object');
    // OpenRouter may answer 200 with only an error.
    if (body['error'] != null && !Array.isArray(body['choices']))
      throw new UpstreamError(classifyInBandError(body, target.provider, quirks));
    const choices = body['choices'];
    if (!Array.isArray(choices) || choices.length === 0) throw malformed('the answer has no choices');
    const completion: ChatCompletion = {
      id: text(body['id']) ?? '',
      object: 'chat.completion',
      created: typeof body['created'] === 'number' ? body['created'] : Math.floor(Date.now() / 1000),
      model: text(body['model']) ?? target.model,
      choices: choices.map((choice: unknown, position) => {
        if (!isObject(choice) || !isObject(choice['message'])) throw malformed('a choice has no message');
        // A provider that failed after starting (OpenRouter): HTTP 200, the choice says so.
        if (choice['error'] != null)
          throw new UpstreamError(classifyInBandError(choice['error'], target.provider, quirks));
        const message = choice['message'];
        const toolCalls = Array.isArray(message['tool_calls']) ? message['tool_calls'].flatMap(toolCall) : [];
        let content = contentText(message['content']);
        if (content === '' && toolCalls.length > 0) content = null;
        const finish = finishReasonOf(choice['finish_reason'], toolCalls.length > 0);
        if (finish === 'error')
          throw new UpstreamError(
            classifyInBandError({ message: 'the answer ended with an error' }, target.provider, quirks),
          );
        return {
          index: typeof choice['index'] === 'number' ? choice['index'] : position,
          message: {
            role: 'assistant' as const,
            content,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            ...(typeof message['refusal'] === 'string' ? { refusal: message['refusal'] } : {}),
          },
          finish_reason: finish,
          logprobs: null,
        };
      }),
      usage: mapUsage(body['usage']) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    };
    const fingerprint = text(body['system_fingerprint']);
    return fingerprint ? { ...completion, system_fingerprint: fingerprint } : completion;
  },

  createStreamTranslator(target) {
    return new OpenAiStreamTranslator(target.provider, quirksFor(target.provider));
  },

  classifyError(status, headers, body, provider) {
    return classifyHttpError(status, headers, body, provider, quirksFor(provider));
  },
};

function requestBody(
  request: ChatRequest,
  model: string,
  stream: boolean,
  quirks: OpenAiCompatibleQuirks,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model, stream };
  // Only ours: a client's stream options (or a stale one on a non-stream call, which OpenAI rejects) never pass.
  delete body['stream_options'];
  if (stream && quirks.streamUsageNeedsOption) body['stream_options'] = { include_usage: true };
  if (quirks.maxTokensField !== 'max_tokens' && body['max_tokens'] !== undefined) {
    body[quirks.maxTokensField] ??= body['max_tokens'];
    delete body['max_tokens'];
  }
  return body;
}

/** Text of a message's content: a string, or (some upstreams) an array of text parts. */
function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return content
    .map((part: unknown) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

function toolCall(raw: unknown): ToolCall[] {
  if (!isObject(raw) || (raw['type'] !== undefined && raw['type'] !== 'function')) return [];
  const fn = isObject(raw['function']) ? raw['function'] : {};
  const args = fn['arguments'];
  return [
    {
      id: text(raw['id']) ?? syntheticCallId(),
      type: 'function',
      function: {
        name: text(fn['name']) ?? '',
        // A no-argument call is `{}` to callers that JSON.parse it; some upstreams send objects.
        arguments: typeof args === 'string' && args !== '' ? args : isObject(args) ? JSON.stringify(args) : '{}',
      },
    },
  ];
}
