import type { ProviderId } from '../../catalog/model-catalog.js';
import type { SseEvent } from '../sse-parser.js';
import { UpstreamError } from '../upstream-failure.js';
import type { StreamTranslator } from '../chat-adapter.js';
import { classifyInBandError } from './openai-compatible-errors.js';
import type { OpenAiCompatibleQuirks } from './openai-compatible-quirks.js';
import { finishReasonOf, isObject, malformed, mapUsage, syntheticCallId, text } from './openai-compatible-wire.js';
import type { ChatCompletionChunk, ChunkChoice, FinishReason, ToolCallDelta, Usage } from '../chat-types.js';

interface CallSlot {
  readonly index: number;
  readonly id: string;
}

/** Per choice: which canonical tool call each upstream fragment continues. */
interface ToolCalls {
  readonly byUpstreamIndex: Map<number, CallSlot>;
  last?: CallSlot;
  next: number;
}

/**
 * `chat.completion.chunk` events → canonical chunks. The stream is complete only at
 * `data: [DONE]`: a connection that ends before it was cut, even after a finish reason.
 */
export class OpenAiStreamTranslator implements StreamTranslator {
  private done = false;
  private finished = false;
  private reported: Usage | undefined;
  private readonly toolCalls = new Map<number, ToolCalls>();

  constructor(
    private readonly provider: ProviderId,
    private readonly quirks: OpenAiCompatibleQuirks,
  ) {}

  onEvent(event: SseEvent): ChatCompletionChunk[] {
    if (this.done) return [];
    if (event.data.trim() === '[DONE]') {
      this.done = true;
      return [];
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      throw malformed('a stream event is not JSON');
    }
    if (!isObject(chunk)) throw malformed('a stream event is not a JSON object');
    if (event.event === 'error' || chunk['error'] != null)
      throw new UpstreamError(classifyInBandError(chunk, this.provider, this.quirks));
    // Usage comes in its own `choices: []` chunk (or, from some upstreams, on a content chunk).
    this.reported = mapUsage(chunk['usage']) ?? this.reported;
    const choices = (Array.isArray(chunk['choices']) ? chunk['choices'] : []).flatMap((raw: unknown) =>
      this.choice(raw),
    );
    return choices.length > 0 ? [canonicalChunk(choices, text(chunk['model']) ?? '')] : [];
  }

  onEnd(): ChatCompletionChunk[] {
    if (!this.done)
      throw new UpstreamError({ kind: 'connection', message: `${this.provider} stream ended before [DONE]` });
    if (this.finished) return [];
    // [DONE] without a finish reason: complete, so say how it ended.
    return [
      canonicalChunk([{ index: 0, delta: {}, finish_reason: this.toolCalls.size > 0 ? 'tool_calls' : 'stop' }], ''),
    ];
  }

  usage(): Usage | undefined {
    return this.reported;
  }

  private choice(raw: unknown): ChunkChoice[] {
    if (!isObject(raw)) return [];
    const index = typeof raw['index'] === 'number' ? raw['index'] : 0;
    const delta = isObject(raw['delta']) ? raw['delta'] : {};
    const out: ChunkChoice['delta'] = {};
    const content = text(delta['content']);
    if (content !== undefined) out.content = content;
    const refusal = text(delta['refusal']);
    if (refusal !== undefined) out.refusal = refusal;
    const tools = Array.isArray(delta['tool_calls'])
      ? delta['tool_calls'].flatMap((fragment: unknown) => this.toolDelta(index, fragment))
      : [];
    if (tools.length > 0) out.tool_calls = tools;
    const finish = raw['finish_reason'] == null ? null : this.finish(raw, index);
    if (finish === null && Object.keys(out).length === 0) return [];
    return [{ index, delta: out, finish_reason: finish }];
  }

  private finish(raw: Record<string, unknown>, index: number): FinishReason {
    const finish = finishReasonOf(raw['finish_reason'], this.toolCalls.has(index));
    if (finish === 'error') {
      throw new UpstreamError(
        classifyInBandError(raw['error'] ?? { message: 'the answer ended with an error' }, this.provider, this.quirks),
      );
    }
    this.finished = true;
    return finish;
  }

  /**
   * Canonical indices count calls in order of first appearance, whatever the upstream
   * numbers them; a new `id` on a known index is a new call (some upstreams reuse index 0).
   */
  private toolDelta(choice: number, raw: unknown): ToolCallDelta[] {
    if (!isObject(raw)) return [];
    let calls = this.toolCalls.get(choice);
    if (!calls) this.toolCalls.set(choice, (calls = { byUpstreamIndex: new Map(), next: 0 }));
    const fn = isObject(raw['function']) ? raw['function'] : {};
    const args =
      typeof fn['arguments'] === 'string'
        ? fn['arguments']
        : isObject(fn['arguments'])
          ? JSON.stringify(fn['arguments'])
          : '';
    const upstreamIndex = typeof raw['index'] === 'number' ? raw['index'] : undefined;
    const id = text(raw['id']);
    let slot = upstreamIndex === undefined ? calls.last : calls.byUpstreamIndex.get(upstreamIndex);
    if (slot && (id === undefined || id === slot.id)) {
      calls.last = slot;
      return args === '' ? [] : [{ index: slot.index, function: { arguments: args } }];
    }
    slot = { index: calls.next++, id: id ?? syntheticCallId() };
    if (upstreamIndex !== undefined) calls.byUpstreamIndex.set(upstreamIndex, slot);
    calls.last = slot;
    return [
      { index: slot.index, id: slot.id, type: 'function', function: { name: text(fn['name']) ?? '', arguments: args } },
    ];
  }
}

/**
 * The gateway stamps id, created and model; the model the upstream named is kept for the model
 * call's span (gen_ai.response.model), as the other formats keep theirs.
 */
const canonicalChunk = (choices: ChunkChoice[], model: string): ChatCompletionChunk => ({
  id: '',
  object: 'chat.completion.chunk',
  created: 0,
  model,
  choices,
});
