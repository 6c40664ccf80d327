import type { SseEvent } from '../sse-parser.js';
import { UpstreamError } from '../upstream-failure.js';
import { choiceChunk, malformedStream, parseEventObject } from '../stream-events.js';
import type { StreamTranslator, UpstreamTarget } from '../chat-adapter.js';
import { inBandError } from './anthropic-errors.js';
import { finishReasonOf, toUsage, type AnthropicUsage } from './anthropic-response.js';
import type { ChatCompletionChunk, ChunkChoice, Usage } from '../chat-types.js';

/**
 * Anthropic's named-event stream → canonical chunks (docs/upstreams.md §2.6):
 * message_start (input usage) → per block content_block_start / _delta / _stop →
 * message_delta (stop reason, cumulative output usage) → message_stop (the terminal marker).
 * `ping`, thinking and unknown events are skipped.
 *
 * Tool-call indices count tool_use blocks in order (0, 1, …): content block indices also count
 * text and thinking blocks, so they cannot be reused.
 */

interface ToolBlock {
  readonly index: number;
  /** The block's start `input`, used when no argument fragment arrives. */
  readonly startInput: unknown;
  argumentsSent: boolean;
}

interface AnthropicEvent {
  type?: unknown;
  index?: unknown;
  message?: { usage?: AnthropicUsage | null } | null;
  content_block?: { type?: unknown; id?: unknown; name?: unknown; text?: unknown; input?: unknown } | null;
  delta?: { type?: unknown; text?: unknown; partial_json?: unknown; stop_reason?: unknown } | null;
  usage?: AnthropicUsage | null;
}

export class AnthropicStreamTranslator implements StreamTranslator {
  private readonly tools = new Map<number, ToolBlock>();
  private counters: AnthropicUsage | undefined;
  private finished = false;
  private stopped = false;

  constructor(private readonly target: UpstreamTarget) {}

  onEvent(event: SseEvent): ChatCompletionChunk[] {
    if (this.stopped) return [];
    const payload = parse(event.data);
    const type = typeof payload.type === 'string' ? payload.type : event.event;
    switch (type) {
      case 'message_start':
        this.addUsage(payload.message?.usage);
        return [];
      case 'content_block_start':
        return this.blockStart(payload);
      case 'content_block_delta':
        return this.blockDelta(payload);
      case 'content_block_stop':
        return this.blockStop(payload);
      case 'message_delta':
        return this.messageDelta(payload);
      case 'message_stop':
        this.stopped = true;
        // A stream that stops without a stop reason still ended normally.
        return this.finished ? [] : this.finish('stop');
      case 'error':
        throw inBandError(payload);
      default:
        return [];
    }
  }

  onEnd(): ChatCompletionChunk[] {
    if (!this.stopped)
      throw new UpstreamError({ kind: 'connection', message: 'anthropic stream ended before message_stop' });
    return [];
  }

  usage(): Usage | undefined {
    return this.counters && toUsage(this.counters);
  }

  private blockStart(payload: AnthropicEvent): ChatCompletionChunk[] {
    const block = payload.content_block;
    if (block?.type === 'text')
      return typeof block.text === 'string' && block.text !== '' ? this.delta({ content: block.text }) : [];
    if (block?.type !== 'tool_use') return [];
    if (typeof block.id !== 'string' || typeof block.name !== 'string')
      throw malformed('tool_use block without id or name');
    const tool: ToolBlock = { index: this.tools.size, startInput: block.input, argumentsSent: false };
    this.tools.set(blockIndex(payload), tool);
    return this.delta({
      tool_calls: [
        { index: tool.index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } },
      ],
    });
  }

  private blockDelta(payload: AnthropicEvent): ChatCompletionChunk[] {
    const delta = payload.delta;
    if (delta?.type === 'text_delta')
      return typeof delta.text === 'string' && delta.text !== '' ? this.delta({ content: delta.text }) : [];
    if (delta?.type !== 'input_json_delta') return [];
    const tool = this.tools.get(blockIndex(payload));
    if (!tool || typeof delta.partial_json !== 'string' || delta.partial_json === '') return [];
    tool.argumentsSent = true;
    return this.arguments(tool, delta.partial_json);
  }

  /** A tool call whose arguments never streamed (no parameters) gets `{}`, never "". */
  private blockStop(payload: AnthropicEvent): ChatCompletionChunk[] {
    const tool = this.tools.get(blockIndex(payload));
    if (!tool || tool.argumentsSent) return [];
    tool.argumentsSent = true;
    const input = tool.startInput !== null && typeof tool.startInput === 'object' ? tool.startInput : {};
    return this.arguments(tool, JSON.stringify(input));
  }

  private messageDelta(payload: AnthropicEvent): ChatCompletionChunk[] {
    this.addUsage(payload.usage);
    const stopReason = payload.delta?.stop_reason;
    if (this.finished || stopReason === undefined || stopReason === null) return [];
    return this.finish(finishReasonOf(stopReason));
  }

  /** Counters are cumulative: a later value replaces the earlier one, absent ones are kept. */
  private addUsage(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    const next: AnthropicUsage = { ...this.counters };
    for (const [key, value] of Object.entries(usage) as [keyof AnthropicUsage, unknown][]) {
      if (value !== null && value !== undefined) (next as Record<string, unknown>)[key] = value;
    }
    this.counters = next;
  }

  private arguments(tool: ToolBlock, fragment: string): ChatCompletionChunk[] {
    return this.delta({ tool_calls: [{ index: tool.index, function: { arguments: fragment } }] });
  }

  private finish(reason: NonNullable<ChunkChoice['finish_reason']>): ChatCompletionChunk[] {
    this.finished = true;
    return [this.chunk({}, reason)];
  }

  private delta(delta: ChunkChoice['delta']): ChatCompletionChunk[] {
    return [this.chunk(delta, null)];
  }

  private chunk(delta: ChunkChoice['delta'], finishReason: ChunkChoice['finish_reason']): ChatCompletionChunk {
    return choiceChunk(this.target.model, delta, finishReason);
  }
}

const parse = (data: string): AnthropicEvent => parseEventObject<AnthropicEvent>('anthropic', data);

function blockIndex(payload: AnthropicEvent): number {
  if (typeof payload.index !== 'number') throw malformed(`${String(payload.type)} without a block index`);
  return payload.index;
}

const malformed = (message: string) => malformedStream('anthropic', message);
