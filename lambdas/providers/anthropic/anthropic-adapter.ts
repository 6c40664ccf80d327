import type { ChatAdapter } from '../chat-adapter.js';
import { classifyAnthropicError } from './anthropic-errors.js';
import { ANTHROPIC_VERSION, toAnthropicBody } from './anthropic-request.js';
import { parseAnthropicResponse } from './anthropic-response.js';
import { AnthropicStreamTranslator } from './anthropic-stream.js';

/**
 * The Anthropic Messages wire format (docs/upstreams.md §2). The translation choices where the
 * formats differ are documented in anthropic-request.ts; responses, streams and errors live in
 * their own modules.
 */
export const anthropicAdapter: ChatAdapter = {
  wireFormat: 'anthropic',

  buildRequest(request, target, stream) {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-api-key': target.apiKey,
      'anthropic-version': ANTHROPIC_VERSION,
    };
    if (stream) headers['accept'] = 'text/event-stream';
    return {
      url: `${target.baseUrl}/v1/messages`,
      headers,
      body: JSON.stringify(toAnthropicBody(request, target.model, stream)),
    };
  },

  parseResponse: parseAnthropicResponse,

  createStreamTranslator: (target) => new AnthropicStreamTranslator(target),

  classifyError: classifyAnthropicError,
};
