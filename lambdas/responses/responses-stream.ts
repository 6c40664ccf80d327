import { ChatError } from '../chat/chat-errors.js';
import { logger } from '../config/logger.js';
import { METRIC, type MetricRecord } from '../observability/metric-names.js';
import { publishMetrics } from '../observability/metrics.js';
import type { ChatCompletionChunk, FinishReason, ToolCallDelta, Usage } from '../providers/chat-types.js';
import type { OutputFunctionCall, OutputMessage, ResponseObject } from './response-object.js';
import { endOf, outputText, usageOf, type ItemIds } from './responses-translation.js';

/**
 * The chat core's chunks as the Responses API's stream: `response.created` and
 * `response.in_progress`, then per output item `response.output_item.added`, its parts and
 * deltas (`response.content_part.added`, `response.output_text.delta`, or
 * `response.function_call_arguments.delta`), their `.done` events and
 * `response.output_item.done`, and last `response.completed` (or `response.incomplete`, or
 * `response.failed` when the stream broke after it began). Every event carries `type` and
 * `sequence_number` (from 0), and the indexes the openai SDK's accumulator checks: each delta
 * names an item it was told of, so `responses.stream(...).finalResponse()` rebuilds the same
 * Response the last event carries.
 */

export interface ResponseEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly [field: string]: unknown;
}

export interface ResponseStreamOptions {
  /** The Response before any output (status in_progress). */
  readonly shell: ResponseObject;
  readonly ids: ItemIds;
  /** Unix seconds, for `completed_at`. */
  readonly nowSeconds: () => number;
  /**
   * Keeps the ended Response when it is stored, before its last event goes out (so a request
   * that follows the event at once finds it), and answers it as kept (`store` false if it was not).
   */
  readonly end: (response: ResponseObject) => Promise<ResponseObject>;
  /** The call's signal: a caller that left is told nothing. */
  readonly signal: AbortSignal;
}

interface OpenCall {
  readonly outputIndex: number;
  readonly item: OutputFunctionCall;
}

/** One streamed Response: the events for `chunks`, see the file's comment. */
export async function* responseEvents(
  chunks: AsyncIterable<ChatCompletionChunk>,
  options: ResponseStreamOptions,
): AsyncGenerator<ResponseEvent> {
  const stream = new ResponseStreamState(options);
  yield stream.event('response.created', { response: stream.snapshot() });
  yield stream.event('response.in_progress', { response: stream.snapshot() });
  let ending: ResponseObject;
  try {
    for await (const chunk of chunks) yield* stream.chunk(chunk);
    yield* stream.closeItems('completed');
    ending = stream.ended();
  } catch (error) {
    if (!(error instanceof ChatError) && options.signal.aborted) throw error;
    yield* stream.closeItems('incomplete');
    ending = stream.failedBy(error);
  }
  const ended = await options.end(ending);
  yield stream.event(lastEventOf(ended), { response: ended });
}

const lastEventOf = (response: ResponseObject): string =>
  response.status === 'failed'
    ? 'response.failed'
    : response.status === 'incomplete'
      ? 'response.incomplete'
      : 'response.completed';

class ResponseStreamState {
  #sequence = 0;
  readonly #output: (OutputMessage | OutputFunctionCall)[] = [];
  #text: { readonly outputIndex: number; readonly item: OutputMessage; value: string } | undefined;
  readonly #calls = new Map<number, OpenCall>();
  #finish: FinishReason | null = null;
  #usage: Usage | null = null;

  constructor(private readonly options: ResponseStreamOptions) {}

  event(type: string, fields: Record<string, unknown>): ResponseEvent {
    return { type, sequence_number: this.#sequence++, ...fields };
  }

  snapshot(): ResponseObject {
    return { ...this.options.shell, output: structuredClone(this.#output) };
  }

  *chunk(chunk: ChatCompletionChunk): Generator<ResponseEvent> {
    if (chunk.usage) this.#usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) return;
    const text = (choice.delta.content ?? '') + (choice.delta.refusal ?? '');
    if (text) yield* this.#textDelta(text);
    for (const call of choice.delta.tool_calls ?? []) yield* this.#callDelta(call);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  *#textDelta(delta: string): Generator<ResponseEvent> {
    if (!this.#text) {
      const item: OutputMessage = {
        type: 'message',
        id: this.options.ids('msg'),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      const outputIndex = this.#output.push(item) - 1;
      this.#text = { outputIndex, item, value: '' };
      yield this.event('response.output_item.added', { output_index: outputIndex, item: structuredClone(item) });
      item.content.push(outputText(''));
      yield this.event('response.content_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: outputText(''),
      });
    }
    const open = this.#text;
    open.value += delta;
    yield this.event('response.output_text.delta', {
      item_id: open.item.id,
      output_index: open.outputIndex,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  *#callDelta(delta: ToolCallDelta): Generator<ResponseEvent> {
    let open = this.#calls.get(delta.index);
    if (!open) {
      // The assistant's text ends where its function calls begin.
      yield* this.#closeText('completed');
      const item: OutputFunctionCall = {
        type: 'function_call',
        id: this.options.ids('fc'),
        call_id: delta.id ?? this.options.ids('call'),
        name: delta.function?.name ?? '',
        arguments: '',
        status: 'in_progress',
      };
      open = { outputIndex: this.#output.push(item) - 1, item };
      this.#calls.set(delta.index, open);
      yield this.event('response.output_item.added', { output_index: open.outputIndex, item: { ...item } });
    } else if (delta.function?.name && !open.item.name) {
      open.item.name = delta.function.name;
    }
    const args = delta.function?.arguments;
    if (!args) return;
    open.item.arguments += args;
    yield this.event('response.function_call_arguments.delta', {
      item_id: open.item.id,
      output_index: open.outputIndex,
      delta: args,
    });
  }

  *#closeText(status: OutputMessage['status']): Generator<ResponseEvent> {
    const open = this.#text;
    if (!open) return;
    this.#text = undefined;
    const part = outputText(open.value);
    open.item.content = [part];
    open.item.status = status;
    const at = { item_id: open.item.id, output_index: open.outputIndex, content_index: 0 };
    yield this.event('response.output_text.done', { ...at, text: open.value, logprobs: [] });
    yield this.event('response.content_part.done', { ...at, part });
    yield this.event('response.output_item.done', {
      output_index: open.outputIndex,
      item: structuredClone(open.item),
    });
  }

  /** Ends every open item: `completed` when the answer ended normally (`incomplete` when cut for length). */
  *closeItems(status: 'completed' | 'incomplete'): Generator<ResponseEvent> {
    const itemStatus = this.#finish === 'length' ? 'incomplete' : status;
    yield* this.#closeText(itemStatus);
    for (const open of [...this.#calls.values()].sort((a, b) => a.outputIndex - b.outputIndex)) {
      open.item.status = itemStatus;
      const at = { item_id: open.item.id, output_index: open.outputIndex };
      yield this.event('response.function_call_arguments.done', {
        ...at,
        name: open.item.name,
        arguments: open.item.arguments,
      });
      yield this.event('response.output_item.done', { output_index: open.outputIndex, item: { ...open.item } });
    }
    this.#calls.clear();
  }

  ended(): ResponseObject {
    return {
      ...this.snapshot(),
      ...endOf(this.#finish),
      completed_at: this.options.nowSeconds(),
      usage: usageOf(this.#usage),
    };
  }

  /**
   * The Response of a stream that broke after it began. A guardrail that blocked the answer
   * leaves it incomplete (`content_filter`) with no output kept; an upstream failure or our own
   * fails it, with the output so far.
   */
  failedBy(error: unknown): ResponseObject {
    const base = { ...this.snapshot(), completed_at: this.options.nowSeconds(), usage: usageOf(this.#usage) };
    if (error instanceof ChatError && (error.kind === 'content_blocked' || error.kind === 'content_filtered'))
      return { ...base, ...endOf('content_filter'), output: [] };
    publishMetrics([STREAM_FAILED]);
    if (error instanceof ChatError)
      return {
        ...base,
        status: 'failed',
        error: { code: error.kind === 'upstream_stream_failed' ? 'server_error' : error.kind, message: error.message },
      };
    logger.error('responses stream failed', {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return {
      ...base,
      status: 'failed',
      error: {
        code: 'server_error',
        message: 'Internal error while streaming; the request id identifies it in the logs',
      },
    };
  }
}

/** One stream that had answered 200 ended failed (the alarm on chat's failed streams counts these too). */
const STREAM_FAILED: MetricRecord = { name: METRIC.streamsFailed, unit: 'Count', value: 1, dimensions: {} };
