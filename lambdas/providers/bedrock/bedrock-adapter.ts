import type { ChatAdapter } from '../chat-adapter.js';
import { UpstreamError } from '../upstream-failure.js';
import { classifyBedrockError } from './bedrock-errors.js';
import { toConverseBody } from './bedrock-request.js';
import { parseConverseResponse } from './bedrock-response.js';
import { conversePath, signBedrockPost } from './bedrock-signing.js';
import { BedrockStreamTranslator } from './bedrock-stream.js';
import { BedrockEventSource } from './event-stream-decoder.js';

/**
 * Amazon Bedrock's Converse and ConverseStream (docs/upstreams.md, "Amazon Bedrock"): no API
 * key, every call signed with the function role's credentials (SigV4, service `bedrock`);
 * streams are AWS's binary event stream, not SSE. Translation choices are in
 * bedrock-request.ts; responses, streams, errors and the framing have their own modules.
 */
export const bedrockAdapter: ChatAdapter = {
  wireFormat: 'bedrock-converse',

  buildRequest(request, target, stream) {
    if (!target.signing)
      throw new UpstreamError({ kind: 'auth', message: 'bedrock: the function has no AWS credentials to sign with' });
    const url = new URL(`${target.baseUrl}${conversePath(target.model, stream)}`);
    const body = JSON.stringify(toConverseBody(request));
    const headers: Record<string, string> = {
      host: url.host,
      'content-type': 'application/json',
      accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    };
    signBedrockPost(url, headers, body, target.signing);
    return { url: url.toString(), headers, body };
  },

  parseResponse: parseConverseResponse,

  createStreamTranslator: (target) => new BedrockStreamTranslator(target),

  createEventSource: () => new BedrockEventSource(),

  classifyError: classifyBedrockError,
};
