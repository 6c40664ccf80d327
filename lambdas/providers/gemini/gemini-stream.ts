import type { SseEvent } from '../sse-parser.js';
import { UpstreamError } from '../upstream-failure.js';
import type { StreamTranslator, UpstreamTarget } from '../chat-adapter.js';
import { finishOf, readResponse, responseIdOf, toolCallId, toUsage, usageMetadataOf } from './gemini-response.js';
import type { UsageMetadata } from './gemini-wire.js';
import type { ChatCompletionChunk, ChunkChoice, ToolCallDelta, Usage } from '../chat-types.js';

/**
 * Gemini's `:streamGenerateContent?alt=sse` → canonical chunks (docs/upstreams.md §3.5). Every event
 * is a whole GenerateContentResponse holding only new text; functionCall parts arrive whole, so
 * each call is one delta with id, name and all its arguments. `usageMetadata` rides on every
 * event and the last one wins. There is no terminal marker: the stream is complete once an event
 * carried a finishReason (or a prompt block), and EOF before that is a cut.
 */
export class GeminiStreamTranslator implements StreamTranslator {
  private nextToolIndex = 0;
  private finished = false;
  private metadata: UsageMetadata | undefined;

  constructor(private readonly target: UpstreamTarget) {}

  onEvent(event: SseEvent): ChatCompletionChunk[] {
    const data = event.data.trim();
    if (data === '' || data === '[DONE]') return [];
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      throw new UpstreamError({ kind: 'malformed', message: 'gemini stream: unreadable event JSON' });
    }
    // An array is the wrapped error form `[{"error":…}]` (or responses batched the array-stream way).
    const responses: unknown[] = Array.isArray(payload) ? payload : [payload];
    return responses.flatMap((response) => this.onResponse(response));
  }

  onEnd(): ChatCompletionChunk[] {
    if (!this.finished)
      throw new UpstreamError({ kind: 'connection', message: 'gemini stream ended without a finishReason' });
    return [];
  }

  usage(): Usage | undefined {
    return this.metadata && toUsage(this.metadata);
  }

  private onResponse(payload: unknown): ChatCompletionChunk[] {
    const reading = readResponse(payload, this.target.provider);
    this.metadata = usageMetadataOf(payload) ?? this.metadata;
    // Anything after the finish (a trailing usage-only event) adds no content.
    if (this.finished) return [];
    const chunks: ChatCompletionChunk[] = [];
    const delta: ChunkChoice['delta'] = {};
    if (reading.text !== '') delta.content = reading.text;
    if (reading.calls.length > 0) {
      const responseId = responseIdOf(payload);
      delta.tool_calls = reading.calls.map((call): ToolCallDelta => {
        const index = this.nextToolIndex++;
        return {
          index,
          id: toolCallId(call, index, responseId),
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        };
      });
    }
    if (delta.content !== undefined || delta.tool_calls !== undefined) chunks.push(this.chunk(delta, null));
    if (reading.finish) {
      const reason = finishOf(reading.finish, this.nextToolIndex > 0);
      this.finished = true;
      chunks.push(this.chunk({}, reason));
    }
    return chunks;
  }

  private chunk(delta: ChunkChoice['delta'], finishReason: ChunkChoice['finish_reason']): ChatCompletionChunk {
    return {
      id: '',
      object: 'chat.completion.chunk',
      created: 0,
      model: this.target.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
  }
}
