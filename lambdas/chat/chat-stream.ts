import type { ChatCompletionChunk, ChatMessage } from '../providers/chat-types.js';
import { UpstreamError } from '../providers/upstream-failure.js';
import { ChatError } from './chat-errors.js';
import { estimateTokens, type Meter, type MeteredUsage } from '../usage/metering.js';
import type { RoutedStream } from './router.js';
import type { AnswerStreamGuard } from './guardrails/stream-guard.js';
import { TurnBudget } from './turn-budget.js';

/**
 * Work relayed between event-loop turns: a chunk counts one, plus one per KiB of its text, so a
 * turn comes at least every 64 small chunks (a few milliseconds) or 64 KiB of text.
 */
export const CHUNKS_PER_TURN = 64;
const TEXT_PER_UNIT = 1024;

export interface StreamShape {
  readonly id: string;
  readonly created: number;
  readonly includeUsage: boolean;
  readonly messages: readonly ChatMessage[];
  /** Answer guardrails applied as chunks pass (PII redaction), and checked at the end. */
  readonly guard?: AnswerStreamGuard;
  /** The call's signal: tells a caller that left from a failure the caller should hear of. */
  readonly signal: AbortSignal;
  /** True when the signal ended because the call ran out of time, not because the caller left. */
  readonly deadlineReached: () => boolean;
  /** The router's clock: the attempt's duration is measured on it. */
  readonly now: () => number;
}

/**
 * The caller's chunks for a committed upstream stream: stamped with one id, one model and
 * `role` on the first; the usage chunk when asked for. A failure after this point is thrown as a
 * ChatError (`upstream_stream_failed`, or the guardrail's kind) for the transport to end the
 * stream with, never a silent truncation; the caller leaving rethrows its abort. The attempt is
 * metered exactly once however the stream ends, the caller leaving included.
 */
export async function* chatStreamChunks(
  routed: RoutedStream,
  shape: StreamShape,
  meter: Meter,
): AsyncGenerator<ChatCompletionChunk> {
  const model = routed.target.model;
  let first = true;
  let streamedText = '';
  let metered = false;
  let guardFailure: ChatError | undefined;
  const meterOnce = (failure?: UpstreamError['failure'], outcome?: string) => {
    if (metered) return;
    metered = true;
    const usage = routed.usage();
    const durationMs = shape.now() - routed.startedAt;
    const firstTokenMs = routed.firstTokenAt - routed.startedAt;
    meter.attempt({ target: routed.target, durationMs, firstTokenMs, usage, failure, outcome }, () =>
      estimate(shape.messages, streamedText),
    );
  };
  const stamp = (chunk: ChatCompletionChunk): ChatCompletionChunk => {
    const choices = chunk.choices.map((choice) => {
      streamedText +=
        (choice.delta.content ?? '') +
        (choice.delta.tool_calls?.map((t) => t.function?.arguments ?? '').join('') ?? '');
      if (!first) return choice;
      return { ...choice, delta: { role: 'assistant' as const, ...choice.delta } };
    });
    first = false;
    return {
      id: shape.id,
      object: 'chat.completion.chunk',
      created: shape.created,
      model,
      choices,
      ...(shape.includeUsage ? { usage: null } : {}),
    };
  };

  try {
    const guard = shape.guard;
    // Redaction holds back a possible match's start; it is released before the finish chunk.
    const forward = function* (chunk: ChatCompletionChunk): Generator<ChatCompletionChunk> {
      if (!guard) return yield stamp(chunk);
      if (chunk.choices.some((choice) => choice.finish_reason !== null)) {
        const held = guard.flush();
        if (held) yield stamp(held);
      }
      yield stamp(guard.transform(chunk));
    };
    for (const chunk of routed.head) yield* forward(chunk);
    const turns = new TurnBudget(CHUNKS_PER_TURN);
    for (;;) {
      const next = await routed.rest.next();
      if (next.done) break;
      if (next.value.choices.length > 0) yield* forward(next.value);
      const turn = turns.spend(1 + Math.floor(textLength(next.value) / TEXT_PER_UNIT));
      if (turn) await turn;
    }
    meterOnce();
    if (guard) {
      const held = guard.flush();
      if (held) yield stamp(held);
      guardFailure = (await guard.finalCheck()).error;
      if (guardFailure) throw guardFailure;
    }
    if (shape.includeUsage) {
      yield {
        id: shape.id,
        object: 'chat.completion.chunk',
        created: shape.created,
        model,
        choices: [],
        usage: routed.usage() ?? estimatedUsage(shape, streamedText),
      };
    }
  } catch (error) {
    if (error !== undefined && error === guardFailure) throw error;
    if (error instanceof UpstreamError) {
      meterOnce(error.failure);
      throw new ChatError(
        'upstream_stream_failed',
        `The model stream failed after it started (${error.failure.kind}): ${error.failure.message}`,
      );
    }
    if (shape.deadlineReached()) {
      meterOnce({ kind: 'timeout', message: 'the function reached its time limit' });
      throw new ChatError(
        'upstream_stream_failed',
        'The answer took longer than this endpoint may run; it was cut at the time limit',
      );
    }
    // The caller left (nobody to tell), or our own fault (the transport reports it).
    meterOnce(
      shape.signal.aborted ? undefined : { kind: 'malformed', message: 'internal error while streaming' },
      shape.signal.aborted ? 'client_closed' : undefined,
    );
    throw error;
  } finally {
    // Reached on every exit, the caller leaving mid-stream included (no catch runs then).
    meterOnce(undefined, 'client_closed');
    await routed.rest.return?.();
  }
}

function textLength(chunk: ChatCompletionChunk): number {
  let length = 0;
  for (const choice of chunk.choices) {
    length += choice.delta.content?.length ?? 0;
    for (const call of choice.delta.tool_calls ?? []) length += call.function?.arguments?.length ?? 0;
  }
  return length;
}

function estimate(messages: readonly ChatMessage[], streamed: string): MeteredUsage {
  return {
    promptTokens: estimateTokens(JSON.stringify(messages)),
    completionTokens: estimateTokens(streamed),
    estimated: true,
  };
}

function estimatedUsage(shape: StreamShape, streamed: string) {
  const { promptTokens, completionTokens } = estimate(shape.messages, streamed);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
