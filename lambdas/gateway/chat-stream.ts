import type { SseFrame } from '../http/reply.js';
import type { ChatCompletionChunk, ChatMessage } from '../providers/chat/types.js';
import { UpstreamError } from '../providers/upstream-failure.js';
import { estimateTokens, type Meter, type MeteredUsage } from './metering.js';
import type { RoutedStream } from './router.js';
import type { AnswerStreamGuard } from './guardrails/index.js';
import { httpErrorOf } from '../http/chat-error-mapping.js';
import { logger } from '../http/logger.js';
import { endedByTimeout } from '../http/middlewares/request-context.js';

export interface StreamShape {
  readonly id: string;
  readonly created: number;
  readonly includeUsage: boolean;
  readonly messages: readonly ChatMessage[];
  /** Answer guardrails applied as chunks pass (PII redaction), and checked at the end. */
  readonly guard?: AnswerStreamGuard;
  /** The call's signal: tells a client that left from a failure the client should hear of. */
  readonly signal: AbortSignal;
}

/**
 * The client's SSE frames for a committed upstream stream: chunks stamped with one id, one
 * model and `role` on the first; the usage chunk when asked for; `[DONE]`. An upstream failure
 * after this point becomes a final error frame (the OpenAI SDKs raise it), never a silent
 * truncation. The attempt is metered exactly once however the stream ends, the client leaving
 * included.
 */
export async function* chatStreamFrames(
  routed: RoutedStream,
  shape: StreamShape,
  meter: Meter,
): AsyncGenerator<SseFrame> {
  const model = routed.target.model;
  let first = true;
  let streamedText = '';
  let metered = false;
  const meterOnce = (failure?: UpstreamError['failure'], outcome?: string) => {
    if (metered) return;
    metered = true;
    const usage = routed.usage();
    meter.attempt({ target: routed.target, durationMs: Date.now() - routed.startedAt, usage, failure, outcome }, () =>
      estimate(shape.messages, streamedText),
    );
  };
  const stamp = (chunk: ChatCompletionChunk) => {
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
    const forward = function* (chunk: ChatCompletionChunk): Generator<SseFrame> {
      if (!guard) return yield { data: stamp(chunk) };
      if (chunk.choices.some((choice) => choice.finish_reason !== null)) {
        const held = guard.flush();
        if (held) yield { data: stamp(held) };
      }
      yield { data: stamp(guard.transform(chunk)) };
    };
    for (const chunk of routed.head) yield* forward(chunk);
    for (;;) {
      const next = await routed.rest.next();
      if (next.done) break;
      if (next.value.choices.length > 0) yield* forward(next.value);
    }
    meterOnce();
    if (guard) {
      const held = guard.flush();
      if (held) yield { data: stamp(held) };
      const { error: failure } = await guard.finalCheck();
      if (failure) {
        const error = httpErrorOf(failure);
        yield {
          data: {
            error: {
              message: error.message,
              type: 'invalid_request_error',
              code: error.code,
              param: error.param ?? null,
            },
          },
        };
        return;
      }
    }
    const usage = routed.usage();
    if (shape.includeUsage) {
      yield {
        data: {
          id: shape.id,
          object: 'chat.completion.chunk',
          created: shape.created,
          model,
          choices: [],
          usage: usage ?? estimatedUsage(shape, streamedText),
        },
      };
    }
    yield { data: '[DONE]' };
  } catch (error) {
    if (error instanceof UpstreamError) {
      meterOnce(error.failure);
      yield errorFrame(
        'UPSTREAM_STREAM_FAILED',
        `The model stream failed after it started (${error.failure.kind}): ${error.failure.message}`,
      );
    } else if (endedByTimeout(shape.signal)) {
      meterOnce({ kind: 'timeout', message: 'the function reached its time limit' });
      yield errorFrame(
        'UPSTREAM_STREAM_FAILED',
        'The answer took longer than this endpoint may run; it was cut at the time limit',
      );
    } else if (shape.signal.aborted) {
      // The client left: nobody to tell.
      meterOnce(undefined, 'client_closed');
      throw error;
    } else {
      // Our own fault: still a final frame, never a silent cut.
      logger.error('chat stream failed', {
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      meterOnce({ kind: 'malformed', message: 'internal error while streaming' });
      yield errorFrame('INTERNAL_ERROR', 'Internal error while streaming; the request id identifies it in the logs');
    }
  } finally {
    // Reached on every exit, the client leaving mid-stream included (no catch runs then).
    meterOnce(undefined, 'client_closed');
    await routed.rest.return?.();
  }
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

function errorFrame(code: string, message: string): SseFrame {
  return { data: { error: { message, type: 'server_error', code, param: null } } };
}
