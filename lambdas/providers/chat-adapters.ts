import { PROVIDERS, type ProviderId, type WireFormat } from '../catalog/model-catalog.js';
import type { ChatAdapter } from './chat-adapter.js';
import { anthropicAdapter } from './anthropic/anthropic-adapter.js';
import { bedrockAdapter } from './bedrock/bedrock-adapter.js';
import { geminiAdapter } from './gemini/gemini-adapter.js';
import { openAiCompatibleAdapter } from './openai-compatible/openai-compatible-adapter.js';

const BY_WIRE_FORMAT: Record<WireFormat, ChatAdapter> = {
  'openai-compatible': openAiCompatibleAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  'bedrock-converse': bedrockAdapter,
};

/** The adapter for a provider follows from its wire format in the catalog: data, not branches. */
export function adapterFor(provider: ProviderId): ChatAdapter {
  return BY_WIRE_FORMAT[PROVIDERS[provider].wireFormat];
}
