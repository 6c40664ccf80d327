import { priceOf } from '../catalog/model-catalog.js';
import type { ChatMessage, ChatRequest } from '../providers/chat-types.js';

/**
 * The most one model call can cost, before it is made: what a budget reserves
 * (lambdas/usage/budget-holds.ts). Every part is an upper bound, so a call metered at its real
 * usage never costs more than its reservation:
 *
 * - prompt tokens: the UTF-8 bytes of every text the request carries (messages, tool calls,
 *   tool definitions, a response schema). Each tokenizer the catalog's families use turns text
 *   into tokens of at least one byte (byte-level BPE, or SentencePiece with byte fallback), so
 *   bytes bound tokens. Plus MESSAGE_OVERHEAD_TOKENS a message for the chat template's role
 *   markers, TOOLS_OVERHEAD_TOKENS when tools are offered (the system text providers add to
 *   describe them; Anthropic documents a few hundred), and IMAGE_TOKENS_BOUND an image;
 * - priced at the dearest prompt rate the model has (a cache write may cost twice the input);
 * - output: the call's `max_tokens` at the output price. A budgeted call always names one: the
 *   budget sends `OUTPUT_CAP_TOKENS` when the caller gave none (budget-holds.ts).
 *
 * A model the catalog cannot price is metered at 0, so it reserves 0.
 */

export const MESSAGE_OVERHEAD_TOKENS = 8;
export const TOOLS_OVERHEAD_TOKENS = 1_000;
/**
 * An image's tokens at the most (images are billed by size: OpenAI's high detail, Anthropic's
 * about 1,600 at its 1.15-megapixel cap, Gemini's tiles): the bound for any one image part.
 */
export const IMAGE_TOKENS_BOUND = 6_400;
/** The output a budgeted call without its own `max_tokens` may write (and reserves). */
export const OUTPUT_CAP_TOKENS = 16_384;

const PER_MILLION = 1_000_000;

/** The prompt tokens `request` can be counted as, at the most. */
export function promptTokenBound(request: ChatRequest): number {
  let tokens = 0;
  for (const message of request.messages) tokens += MESSAGE_OVERHEAD_TOKENS + messageBound(message);
  if (request.tools?.length) tokens += TOOLS_OVERHEAD_TOKENS + bytes(JSON.stringify(request.tools));
  if (request.tool_choice !== undefined) tokens += bytes(JSON.stringify(request.tool_choice));
  if (request.response_format !== undefined) tokens += bytes(JSON.stringify(request.response_format));
  return tokens;
}

/** The cost of `request` on `model` at the most, in micro-USD (rounded up); 0 for an unpriced model. */
export function callCostBoundMicroUsd(model: string, request: ChatRequest): number {
  const price = priceOf(model);
  if (!price) return 0;
  const promptRate = Math.max(
    price.inputPerMTok,
    price.cachedInputPerMTok ?? 0,
    price.cacheWritePerMTok ?? 0,
    price.cacheWrite1hPerMTok ?? 0,
  );
  const output = request.max_tokens ?? OUTPUT_CAP_TOKENS;
  // Whole tokens times integer rates stay exact in doubles far past any real request.
  const scaled = promptTokenBound(request) * promptRate + output * price.outputPerMTok;
  return Math.ceil(scaled / PER_MILLION);
}

function messageBound(message: ChatMessage): number {
  let tokens = message.role !== 'tool' && message.name ? bytes(message.name) : 0;
  if (message.role === 'tool') tokens += bytes(message.tool_call_id);
  if (message.role === 'assistant' && message.tool_calls?.length) tokens += bytes(JSON.stringify(message.tool_calls));
  const content = message.content;
  if (typeof content === 'string') return tokens + bytes(content);
  for (const part of content ?? []) tokens += part.type === 'text' ? bytes(part.text) : IMAGE_TOKENS_BOUND;
  return tokens;
}

/**
 * The cost of embedding `texts` on `model` at the most, in micro-USD (rounded up): every text's
 * UTF-8 bytes as prompt tokens (bytes bound tokens, as above) at the model's input rate; an
 * embedding has no output. 0 for an unpriced model.
 */
export function embeddingCostBoundMicroUsd(model: string, texts: readonly string[]): number {
  const price = priceOf(model);
  if (!price) return 0;
  let tokens = 0;
  for (const text of texts) tokens += bytes(text);
  return Math.ceil((tokens * price.inputPerMTok) / PER_MILLION);
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
