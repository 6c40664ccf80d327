import { hash } from 'node:crypto';
import { canonicalJson } from '../schema/canonical-json.js';
import type { GatewayChatRequest } from './chat-request.js';
import { effectiveTemperature } from './upstream-request.js';

/**
 * Everything that changes the answer, and nothing else: routing knobs (fallback, retries,
 * timeout, load balancing) and transport flags are left out on purpose. `resolvedModel` is
 * the model that would serve, so an alias and its model id share entries.
 */
export function cacheKey(request: GatewayChatRequest, resolvedModel: string, guardrails: readonly string[]): string {
  const material = {
    model: resolvedModel,
    messages: request.messages,
    tools: request.tools,
    tool_choice: request.tool_choice,
    parallel_tool_calls: request.parallel_tool_calls,
    response_format: request.response_format,
    // As sent upstream: an omitted temperature and an explicit 0.7 get the same answer.
    temperature: effectiveTemperature(request),
    top_p: request.top_p,
    max_tokens: request.max_completion_tokens ?? request.max_tokens,
    frequency_penalty: request.frequency_penalty,
    presence_penalty: request.presence_penalty,
    stop: request.stop,
    seed: request.seed,
    prompt: request.prompt_id
      ? { id: request.prompt_id, version: request.prompt_version, variables: request.prompt_variables }
      : undefined,
    guardrails: [...guardrails].sort(),
  };
  return hash('sha256', canonicalJson(material), 'base64url');
}
