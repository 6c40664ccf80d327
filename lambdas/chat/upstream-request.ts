import type { ChatRequest } from '../providers/chat-types.js';
import { DEFAULT_TEMPERATURE, type GatewayChatRequest } from './chat-request.js';

/**
 * The part of a gateway request that goes upstream: the gateway's own fields (fallback,
 * retries, timeout, load_balance, guardrails, prompt_*) stay here, and nulls an SDK sends for
 * "unset" are dropped. A temperature is always sent: the caller's, else the interface's default
 * (the schema fills it in for a validated body; the chat modes' bodies and a null come here without).
 */
export function upstreamRequest(request: GatewayChatRequest, model: string): ChatRequest {
  const upstream: ChatRequest = { model, messages: request.messages };
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) upstream.max_tokens = maxTokens;
  upstream.temperature = effectiveTemperature(request);
  if (request.top_p != null) upstream.top_p = request.top_p;
  if (request.frequency_penalty != null) upstream.frequency_penalty = request.frequency_penalty;
  if (request.presence_penalty != null) upstream.presence_penalty = request.presence_penalty;
  if (request.stop != null) upstream.stop = request.stop;
  if (request.seed != null) upstream.seed = request.seed;
  if (request.user !== undefined) upstream.user = request.user;
  if (request.tools?.length) upstream.tools = request.tools;
  if (request.tool_choice !== undefined) upstream.tool_choice = request.tool_choice;
  if (request.parallel_tool_calls !== undefined) upstream.parallel_tool_calls = request.parallel_tool_calls;
  if (request.response_format !== undefined) upstream.response_format = request.response_format;
  return upstream;
}

/** The temperature a request samples at: its own, or docs/interface.md §2.2's default. */
export const effectiveTemperature = (request: Pick<GatewayChatRequest, 'temperature'>): number =>
  request.temperature ?? DEFAULT_TEMPERATURE;
