import { createHash, randomUUID } from 'node:crypto';
import { UpstreamError } from '../upstream-failure.js';
import type { UpstreamTarget } from '../chat-adapter.js';
import { inBandError } from './gemini-errors.js';
import type { Candidate, GenerateContentResponse, UsageMetadata, WirePart } from './gemini-wire.js';
import type { ChatCompletion, FinishReason, ToolCall, Usage } from '../chat-types.js';

/** Gemini `GenerateContentResponse` → canonical completion; the pieces the stream translator shares. */

/**
 * docs/upstreams.md §9. `error` marks reasons that mean the turn failed (a malformed or unexpected
 * function call, `OTHER`): they surface as a `malformed` UpstreamError, which the router may
 * retry or fall back on, rather than as a finished answer with nothing usable in it. `STOP` with
 * functionCall parts becomes `tool_calls` (Gemini has no such reason).
 */
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  LANGUAGE: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  IMAGE_OTHER: 'content_filter',
  OTHER: 'error',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  NO_IMAGE: 'error',
  FINISH_REASON_UNSPECIFIED: 'error',
};

/** Unknown (future) reasons read as a normal stop, except new `IMAGE_*` filters. */
export function finishReasonOf(reason: string, hasToolCalls: boolean): FinishReason {
  const known = FINISH_REASONS[reason] ?? (reason.startsWith('IMAGE_') ? 'content_filter' : 'stop');
  if (known === 'error')
    throw new UpstreamError({
      kind: 'malformed',
      providerCode: reason,
      message: `gemini ended the turn with ${reason}`,
    });
  return known === 'stop' && hasToolCalls ? 'tool_calls' : known;
}

/** A blocked prompt is a content filter whatever its block reason (even `OTHER`). */
export function finishOf(finish: NonNullable<CandidateReading['finish']>, hasToolCalls: boolean): FinishReason {
  return finish.promptBlocked ? 'content_filter' : finishReasonOf(finish.reason, hasToolCalls);
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Output = candidates + thoughts (both billed as output); prompt already includes cached tokens. */
export function toUsage(meta: UsageMetadata): Usage {
  const prompt = count(meta.promptTokenCount);
  const thoughts = count(meta.thoughtsTokenCount);
  const completion = count(meta.candidatesTokenCount) + thoughts;
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: count(meta.cachedContentTokenCount) },
  };
  if (thoughts > 0) usage.completion_tokens_details = { reasoning_tokens: thoughts };
  return usage;
}

/** What one response (or stream event) holds for the first candidate. */
export interface CandidateReading {
  readonly text: string;
  readonly calls: readonly { readonly id?: string; readonly name: string; readonly args: Record<string, unknown> }[];
  /** The raw finish reason, or a prompt block's reason; undefined while a stream goes on. */
  readonly finish?: { readonly reason: string; readonly promptBlocked: boolean };
}

/** Throws for an in-band error envelope, a response without candidates or block, or a bad part. */
export function readResponse(payload: unknown, provider: string): CandidateReading {
  const failure = inBandError(payload, provider);
  if (failure) throw new UpstreamError(failure);
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw malformed('answer is not a JSON object');
  const response = payload as GenerateContentResponse;
  const candidates = Array.isArray(response.candidates) ? (response.candidates as Candidate[]) : [];
  const candidate = candidates.find((c) => c?.index === undefined || c.index === 0) ?? candidates[0];
  if (!candidate) {
    const blockReason = response.promptFeedback?.blockReason;
    if (typeof blockReason === 'string')
      return { text: '', calls: [], finish: { reason: blockReason, promptBlocked: true } };
    // A stream may carry usage alone; a whole answer without a candidate is checked by the caller.
    return { text: '', calls: [] };
  }
  const parts = Array.isArray(candidate.content?.parts) ? (candidate.content.parts as WirePart[]) : [];
  let text = '';
  const calls: { id?: string; name: string; args: Record<string, unknown> }[] = [];
  for (const part of parts) {
    // Thought summaries are the model's reasoning, not its answer.
    if (typeof part?.text === 'string' && part.thought !== true) text += part.text;
    else if (part?.functionCall) calls.push(callOf(part.functionCall));
  }
  const reason = candidate.finishReason;
  return { text, calls, ...(typeof reason === 'string' ? { finish: { reason, promptBlocked: false } } : {}) };
}

function callOf(call: NonNullable<WirePart['functionCall']>): {
  id?: string;
  name: string;
  args: Record<string, unknown>;
} {
  if (typeof call.name !== 'string' || call.name === '') throw malformed('functionCall without a name');
  const args = call.args === undefined || call.args === null ? {} : call.args;
  if (typeof args !== 'object' || Array.isArray(args)) throw malformed('functionCall args is not an object');
  return {
    ...(typeof call.id === 'string' && call.id !== '' ? { id: call.id } : {}),
    name: call.name,
    args: args as Record<string, unknown>,
  };
}

/**
 * Gemini's `id` when it sent one; otherwise `call_<index>_<hash>`, stable for the same answer
 * (the hash covers the response id, the position, the name and the arguments) so a retried
 * read of one answer yields the same ids.
 */
export function toolCallId(call: CandidateReading['calls'][number], index: number, responseId: string): string {
  if (call.id !== undefined) return call.id;
  const hash = createHash('sha256')
    .update(`${responseId}\u0000${index}\u0000${call.name}\u0000${JSON.stringify(call.args)}`)
    .digest('hex');
  return `call_${index}_${hash.slice(0, 12)}`;
}

export function responseIdOf(payload: unknown): string {
  const id = (payload as GenerateContentResponse | null)?.responseId;
  return typeof id === 'string' ? id : '';
}

export function usageMetadataOf(payload: unknown): UsageMetadata | undefined {
  const meta = (payload as GenerateContentResponse | null)?.usageMetadata;
  return meta !== null && typeof meta === 'object' ? meta : undefined;
}

export function parseGeminiResponse(body: unknown, target: UpstreamTarget): ChatCompletion {
  const reading = readResponse(body, target.provider);
  if (!reading.finish && reading.text === '' && reading.calls.length === 0) throw malformed('answer has no candidate');
  const responseId = responseIdOf(body);
  const toolCalls: ToolCall[] = reading.calls.map((call, index) => ({
    id: toolCallId(call, index, responseId),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  // A whole answer always ends; a missing reason reads as a normal stop.
  const finish = finishOf(reading.finish ?? { reason: 'STOP', promptBlocked: false }, toolCalls.length > 0);
  const completion: ChatCompletion = {
    id: `chatcmpl-${responseId || randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: target.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reading.text === '' && toolCalls.length > 0 ? null : reading.text,
          refusal: null,
        },
        finish_reason: finish,
        logprobs: null,
      },
    ],
    usage: toUsage(usageMetadataOf(body) ?? {}),
  };
  if (toolCalls.length > 0) completion.choices[0]!.message.tool_calls = toolCalls;
  return completion;
}

function malformed(message: string): UpstreamError {
  return new UpstreamError({ kind: 'malformed', message: `gemini: ${message}` });
}
