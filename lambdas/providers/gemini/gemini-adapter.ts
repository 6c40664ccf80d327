import type { ChatAdapter } from '../chat-adapter.js';
import { classifyGeminiError } from './gemini-errors.js';
import { toGenerateContentRequest } from './gemini-request.js';
import { parseGeminiResponse } from './gemini-response.js';
import { GeminiStreamTranslator } from './gemini-stream.js';

/**
 * The Gemini native wire format (docs/upstreams.md §3), provider `google`. The translation choices
 * where the formats differ are documented in gemini-request.ts (requests) and
 * gemini-response.ts (finish reasons, usage, synthesised tool-call ids); streams and errors
 * live in their own modules.
 */
export const geminiAdapter: ChatAdapter = {
  wireFormat: 'gemini',

  buildRequest(request, target, stream) {
    // The catalog's ids are bare; resource names (`models/…`) are tolerated.
    const model = encodeURIComponent(target.model.replace(/^models\//, ''));
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-goog-api-key': target.apiKey };
    if (stream) headers['accept'] = 'text/event-stream';
    return {
      url: `${target.baseUrl}/models/${model}:${method}`,
      headers,
      body: JSON.stringify(toGenerateContentRequest(request)),
    };
  },

  parseResponse: parseGeminiResponse,

  createStreamTranslator: (target) => new GeminiStreamTranslator(target),

  classifyError: classifyGeminiError,
};
