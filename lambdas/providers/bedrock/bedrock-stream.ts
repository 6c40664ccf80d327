import type { SseEvent } from '../sse-parser.js';
import { UpstreamError } from '../upstream-failure.js';
import { choiceChunk, malformedStream, parseEventObject } from '../stream-events.js';
import type { StreamTranslator, UpstreamTarget } from '../chat-adapter.js';
import { streamException } from './bedrock-errors.js';
import { finishReasonOf, toUsage, type ConverseUsage } from './bedrock-response.js';
import type { ChatCompletionChunk, ChunkChoice, Usage } from '../chat-types.js';

/**
 * ConverseStream's events (decoded from the binary frames by event-stream-decoder.ts) →
 * canonical chunks: messageStart → per block contentBlockStart (tool use only) /
 * contentBlockDelta / contentBlockStop → messageStop (the stop reason: the answer is whole) →
 * metadata (usage). An exception frame fails the attempt with its kind (bedrock-errors.ts).
 * Reasoning deltas and unknown events are skipped.
 *
 * Tool-call indices count toolUse blocks in order (0, 1, …), as block indices also count text.
 */

interface ToolBlock {
  readonly index: number;
  argumentsSent: boolean;
}

interface ConverseEvent {
  contentBlockIndex?: unknown;
  start?: { toolUse?: { toolUseId?: unknown; name?: unknown } | null } | null;
  delta?: { text?: unknown; toolUse?: { input?: unknown } | null } | null;
  stopReason?: unknown;
  usage?: ConverseUsage | null;
}

export class BedrockStreamTranslator implements StreamTranslator {
  private readonly tools = new Map<number, ToolBlock>();
  private counters: ConverseUsage | undefined;
  private stopped = false;

  constructor(private readonly target: UpstreamTarget) {}

  onEvent(event: SseEvent): ChatCompletionChunk[] {
    const name = event.event ?? '';
    if (name.startsWith('exception:') || name.startsWith('error:'))
      throw streamException(name.slice(name.indexOf(':') + 1), event.data);
    const payload = parse(event.data);
    switch (name) {
      case 'contentBlockStart':
        return this.blockStart(payload);
      case 'contentBlockDelta':
        return this.blockDelta(payload);
      case 'contentBlockStop':
        return this.blockStop(payload);
      case 'messageStop':
        if (this.stopped) return [];
        this.stopped = true;
        return [this.chunk({}, finishReasonOf(payload.stopReason))];
      case 'metadata':
        if (payload.usage) this.counters = payload.usage;
        return [];
      default:
        return [];
    }
  }

  onEnd(): ChatCompletionChunk[] {
    if (!this.stopped)
      throw new UpstreamError({ kind: 'connection', message: 'bedrock stream ended before messageStop' });
    return [];
  }

  usage(): Usage | undefined {
    return this.counters && toUsage(this.counters);
  }

  private blockStart(payload: ConverseEvent): ChatCompletionChunk[] {
    const toolUse = payload.start?.toolUse;
    if (!toolUse) return [];
    if (typeof toolUse.toolUseId !== 'string' || typeof toolUse.name !== 'string')
      throw malformed('toolUse start without toolUseId or name');
    const tool: ToolBlock = { index: this.tools.size, argumentsSent: false };
    this.tools.set(blockIndex(payload), tool);
    return this.delta({
      tool_calls: [
        { index: tool.index, id: toolUse.toolUseId, type: 'function', function: { name: toolUse.name, arguments: '' } },
      ],
    });
  }

  private blockDelta(payload: ConverseEvent): ChatCompletionChunk[] {
    const delta = payload.delta;
    if (typeof delta?.text === 'string') return delta.text === '' ? [] : this.delta({ content: delta.text });
    const input = delta?.toolUse?.input;
    if (typeof input !== 'string' || input === '') return [];
    const tool = this.tools.get(blockIndex(payload));
    if (!tool) return [];
    tool.argumentsSent = true;
    return this.delta({ tool_calls: [{ index: tool.index, function: { arguments: input } }] });
  }

  /** A tool call whose arguments never streamed (no parameters) gets `{}`, never "". */
  private blockStop(payload: ConverseEvent): ChatCompletionChunk[] {
    const tool = this.tools.get(blockIndex(payload));
    if (!tool || tool.argumentsSent) return [];
    tool.argumentsSent = true;
    return this.delta({ tool_calls: [{ index: tool.index, function: { arguments: '{}' } }] });
  }

  private delta(delta: ChunkChoice['delta']): ChatCompletionChunk[] {
    return [this.chunk(delta, null)];
  }

  private chunk(delta: ChunkChoice['delta'], finishReason: ChunkChoice['finish_reason']): ChatCompletionChunk {
    return choiceChunk(this.target.model, delta, finishReason);
  }
}

const parse = (data: string): ConverseEvent => parseEventObject<ConverseEvent>('bedrock', data);

function blockIndex(payload: ConverseEvent): number {
  if (typeof payload.contentBlockIndex !== 'number') throw malformed('content block event without contentBlockIndex');
  return payload.contentBlockIndex;
}

const malformed = (message: string) => malformedStream('bedrock', message);
