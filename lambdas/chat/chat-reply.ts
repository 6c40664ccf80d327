import { METRIC, type MetricRecord } from '../observability/metric-names.js';
import { publishMetrics } from '../observability/metrics.js';
import { ChatError } from './chat-errors.js';
import type { ChatResult, ChatRouting } from './chat-core.js';
import type { ChatCompletionChunk } from '../providers/chat-types.js';
import { httpErrorOf } from '../http/errors.js';
import { logger } from '../config/logger.js';
import { bare, sse, type Reply, type SseFrame } from '../http/reply.js';

/** The chat core's result as the OpenAI wire shape: a JSON body or SSE frames, and headers. */
export function chatReply(result: ChatResult, signal: AbortSignal): Reply {
  const headers = chatAnswerHeaders(result);
  if (result.kind === 'stream') return sse(chatFrames(result.chunks, signal), headers);
  return bare(result.completion, 200, { ...headers, 'X-Cache': result.cache });
}

/**
 * Chunks as frames, then `[DONE]`. A failure after the first chunk ends the stream with one
 * error frame (the OpenAI SDKs raise it); the caller having left ends it without one.
 */
export async function* chatFrames(
  chunks: AsyncIterable<ChatCompletionChunk>,
  signal: AbortSignal,
): AsyncGenerator<SseFrame> {
  try {
    for await (const chunk of chunks) yield { data: chunk };
  } catch (error) {
    if (error instanceof ChatError) {
      if (error.kind === 'upstream_stream_failed') publishMetrics([STREAM_FAILED]);
      return yield errorFrameOf(error);
    }
    if (signal.aborted) throw error;
    publishMetrics([STREAM_FAILED]);
    // Our own fault: still a final frame, never a silent cut.
    logger.error('chat stream failed', {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return yield frame(
      'server_error',
      'INTERNAL_ERROR',
      'Internal error while streaming; the request id identifies it in the logs',
    );
  }
  yield { data: '[DONE]' };
}

/** One stream that had answered 200 ended in a server error frame (an alarm watches the count). */
const STREAM_FAILED: MetricRecord = { name: METRIC.streamsFailed, unit: 'Count', value: 1, dimensions: {} };

/** The caller's own failures (guardrails) are invalid_request_error; the upstream's, server_error. */
function errorFrameOf(error: ChatError): SseFrame {
  const { code, param } = httpErrorOf(error);
  const type = error.kind === 'upstream_stream_failed' ? 'server_error' : 'invalid_request_error';
  return frame(type, code, error.message, param);
}

function frame(type: string, code: string, message: string, param?: string): SseFrame {
  return { data: { error: { message, type, code, param: param ?? null } } };
}

/** What every answer of the chat core says in headers: the model used, retries, fallback, guardrails. */
export function chatAnswerHeaders(result: Pick<ChatResult, 'routing' | 'guardrailStatus'>): Record<string, string> {
  return { ...routingHeaders(result.routing), ...guardrailHeader(result.guardrailStatus) };
}

function routingHeaders(routing: ChatRouting): Record<string, string> {
  return {
    'X-Model-Used': routing.model,
    'X-Retry-Count': String(routing.retries),
    ...(routing.fallbackFrom ? { 'X-Fallback-From': routing.fallbackFrom } : {}),
  };
}

function guardrailHeader(status: string): Record<string, string> {
  return status ? { 'X-Guardrail-Status': status } : {};
}
