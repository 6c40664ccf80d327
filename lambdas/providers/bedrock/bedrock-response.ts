import { UpstreamError } from '../upstream-failure.js';
import type { UpstreamTarget } from '../chat-adapter.js';
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../chat-types.js';

/** Converse response → canonical completion; the pieces the stream translator shares. */

/** Unknown (future) reasons read as a normal stop. */
const STOP_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

export function finishReasonOf(stopReason: unknown): FinishReason {
  return (typeof stopReason === 'string' ? STOP_REASONS[stopReason] : undefined) ?? 'stop';
}

/** Converse's TokenUsage; any may be absent. */
export interface ConverseUsage {
  inputTokens?: unknown;
  outputTokens?: unknown;
  totalTokens?: unknown;
  cacheReadInputTokens?: unknown;
  cacheWriteInputTokens?: unknown;
}

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

/**
 * Bedrock's `inputTokens` counts only the uncached input, as Anthropic's does: the prompt is it
 * plus the cache reads plus the cache writes (so `totalTokens` is the three and the output).
 * Bedrock's cache writes are its 5-minute cache's; reasoning is inside `outputTokens`.
 */
export function toUsage(usage: ConverseUsage): Usage {
  const cacheRead = count(usage.cacheReadInputTokens);
  const written = count(usage.cacheWriteInputTokens);
  const prompt = count(usage.inputTokens) + cacheRead + written;
  const completion = count(usage.outputTokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead, ...(written > 0 ? { cache_write_tokens: written } : {}) },
  };
}

interface ConverseContentBlock {
  text?: unknown;
  toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown } | null;
}

interface ConverseResponseBody {
  output?: { message?: { content?: unknown } | null } | null;
  stopReason?: unknown;
  usage?: ConverseUsage | null;
}

export function parseConverseResponse(body: unknown, target: UpstreamTarget): ChatCompletion {
  const content = (body as ConverseResponseBody | null)?.output?.message?.content;
  if (!Array.isArray(content))
    throw new UpstreamError({ kind: 'malformed', message: 'bedrock answered without output.message.content' });
  const response = body as ConverseResponseBody;
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of content as (ConverseContentBlock | null)[]) {
    // Reasoning, citations and guardrail blocks have no place in a chat completion.
    if (typeof block?.text === 'string') text += block.text;
    else if (block?.toolUse) toolCalls.push(toolCallOf(block.toolUse));
  }
  const completion: ChatCompletion = {
    // Converse names no id: the gateway's own request id identifies the answer.
    id: '',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: target.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null },
        finish_reason: finishReasonOf(response.stopReason),
        logprobs: null,
      },
    ],
    usage: toUsage(response.usage ?? {}),
  };
  if (toolCalls.length > 0) completion.choices[0]!.message.tool_calls = toolCalls;
  return completion;
}

function toolCallOf(block: NonNullable<ConverseContentBlock['toolUse']>): ToolCall {
  if (typeof block.toolUseId !== 'string' || typeof block.name !== 'string')
    throw new UpstreamError({ kind: 'malformed', message: 'bedrock toolUse block without toolUseId or name' });
  return {
    id: block.toolUseId,
    type: 'function',
    function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
  };
}
