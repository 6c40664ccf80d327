import { PROVIDERS, type ProviderId, type WireFormat } from '../../catalog/index.js';
import type { ChatAdapter } from './adapter.js';
import { anthropicAdapter } from './anthropic.js';
import { geminiAdapter } from './gemini.js';
import { openAiCompatibleAdapter } from './openai-compatible.js';

const BY_WIRE_FORMAT: Record<WireFormat, ChatAdapter> = {
  'openai-compatible': openAiCompatibleAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

/** The adapter for a provider follows from its wire format in the catalog: data, not branches. */
export function adapterFor(provider: ProviderId): ChatAdapter {
  return BY_WIRE_FORMAT[PROVIDERS[provider].wireFormat];
}
