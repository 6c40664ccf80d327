import { UpstreamError } from '../upstream-failure.js';
import type { UpstreamTarget } from '../chat-adapter.js';
import { inBandError } from './anthropic-errors.js';
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../chat-types.js';

/** Anthropic Messages response → canonical completion; the pieces the stream translator shares. */

/** docs/upstreams.md §9. Unknown (future) reasons read as a normal stop. */
const STOP_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  // The server paused a long turn; the caller may continue it, but this answer is complete.
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function finishReasonOf(stopReason: unknown): FinishReason {
  return (typeof stopReason === 'string' ? STOP_REASONS[stopReason] : undefined) ?? 'stop';
}

/** Anthropic's usage counters as they arrive; any may be absent or null. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** The cache writes by how long they are kept; together they are `cache_creation_input_tokens`. */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * Anthropic's `input_tokens` counts only the uncached input: the prompt is it plus the cache
 * writes plus the cache reads (docs/upstreams.md §9). Writes are priced by how long they are
 * kept, so the 1-hour part rides along; output includes thinking.
 */
export function toUsage(usage: AnthropicUsage): Usage {
  const cacheRead = count(usage.cache_read_input_tokens);
  const byTtl = usage.cache_creation;
  const written1h = count(byTtl?.ephemeral_1h_input_tokens);
  const written =
    typeof usage.cache_creation_input_tokens === 'number'
      ? count(usage.cache_creation_input_tokens)
      : count(byTtl?.ephemeral_5m_input_tokens) + written1h;
  const prompt = count(usage.input_tokens) + written + cacheRead;
  const completion = count(usage.output_tokens);
  const result: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: {
      cached_tokens: cacheRead,
      ...(written > 0 ? { cache_write_tokens: written } : {}),
      ...(written1h > 0 ? { cache_write_1h_tokens: Math.min(written1h, written) } : {}),
    },
  };
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') result.completion_tokens_details = { reasoning_tokens: thinking };
  return result;
}

interface AnthropicContentBlock {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

interface AnthropicMessageBody {
  type?: unknown;
  id?: unknown;
  model?: unknown;
  content?: unknown;
  stop_reason?: unknown;
  usage?: AnthropicUsage | null;
}

export function parseAnthropicResponse(body: unknown, target: UpstreamTarget): ChatCompletion {
  const message = (body ?? {}) as AnthropicMessageBody;
  if (message.type === 'error') throw inBandError(body);
  if (message.type !== 'message' || !Array.isArray(message.content)) {
    throw new UpstreamError({ kind: 'malformed', message: 'anthropic answered something other than a message' });
  }
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of message.content as AnthropicContentBlock[]) {
    // Thinking, redacted thinking and server-tool blocks have no place in a chat completion.
    if (block?.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block?.type === 'tool_use') toolCalls.push(toolCallOf(block));
  }
  const completion: ChatCompletion = {
    id: typeof message.id === 'string' ? message.id : '',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof message.model === 'string' ? message.model : target.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null },
        finish_reason: finishReasonOf(message.stop_reason),
        logprobs: null,
      },
    ],
    usage: toUsage(message.usage ?? {}),
  };
  if (toolCalls.length > 0) completion.choices[0]!.message.tool_calls = toolCalls;
  return completion;
}

function toolCallOf(block: AnthropicContentBlock): ToolCall {
  if (typeof block.id !== 'string' || typeof block.name !== 'string') {
    throw new UpstreamError({ kind: 'malformed', message: 'anthropic tool_use block without id or name' });
  }
  return {
    id: block.id,
    type: 'function',
    function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
  };
}
