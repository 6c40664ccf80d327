import { randomUUID } from 'node:crypto';
import { UpstreamError } from '../upstream-failure.js';
import type { FinishReason, Usage } from '../chat-types.js';

/** Small readers shared by the OpenAI-compatible adapter's parts: upstream JSON is untrusted. */

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A non-empty string, or undefined. */
export const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

export const malformed = (why: string): UpstreamError =>
  new UpstreamError({ kind: 'malformed', message: `upstream answer unreadable: ${why}` });

/** For upstreams that leave a tool call's id out (callers need one to answer it). */
export const syntheticCallId = (): string => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/**
 * The upstream's finish reason in canonical terms. Some upstreams say `stop` after tool
 * calls; callers decide whether to run tools from `tool_calls`, so that is what it becomes.
 */
export function finishReasonOf(value: unknown, sawToolCalls: boolean): FinishReason {
  switch (value) {
    case 'length':
    case 'content_filter':
    case 'error':
      return value;
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      return sawToolCalls ? 'tool_calls' : 'stop';
  }
}

/** Usage as the gateway counts it; undefined when the object carries no token counts. */
export function mapUsage(raw: unknown): Usage | undefined {
  if (!isObject(raw)) return undefined;
  const prompt = count(raw['prompt_tokens']);
  const completion = count(raw['completion_tokens']);
  if (prompt === undefined && completion === undefined) return undefined;
  const usage: Usage = {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: count(raw['total_tokens']) ?? (prompt ?? 0) + (completion ?? 0),
  };
  const promptDetails = isObject(raw['prompt_tokens_details']) ? raw['prompt_tokens_details'] : {};
  const cached = count(promptDetails['cached_tokens']);
  // OpenRouter's: the prompt tokens its upstream (Anthropic, say) charged a cache write for.
  const written = count(promptDetails['cache_write_tokens']);
  if (cached !== undefined || written) {
    usage.prompt_tokens_details = {
      ...(cached !== undefined ? { cached_tokens: cached } : {}),
      ...(written ? { cache_write_tokens: written } : {}),
    };
  }
  const reasoning = count(
    isObject(raw['completion_tokens_details']) ? raw['completion_tokens_details']['reasoning_tokens'] : undefined,
  );
  if (reasoning !== undefined) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
