import { SseParser } from './sse-parser.js';
import { send } from './http-transport.js';
import { UpstreamError } from './upstream-failure.js';
import type { ChatAdapter, UpstreamTarget } from './chat-adapter.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, Usage } from './chat-types.js';

export interface CallOptions {
  /** The call's own signal: aborted when the client leaves or the function must stop. */
  readonly signal: AbortSignal;
  /**
   * Milliseconds for the whole answer (non-streaming), or for the first token and then for
   * each gap between events (streaming), so a long stream may run while it keeps moving.
   */
  readonly timeoutMs: number;
}

export interface UpstreamStream {
  readonly chunks: AsyncIterable<ChatCompletionChunk>;
  /** Usage the provider reported so far, even after a failure. */
  usage(): Usage | undefined;
}

/** One non-streaming attempt: the completion, or an UpstreamError that says what failed. */
export async function completeOnce(
  adapter: ChatAdapter,
  request: ChatRequest,
  target: UpstreamTarget,
  options: CallOptions,
): Promise<ChatCompletion> {
  const deadline = new Deadline(options);
  try {
    deadline.arm(options.timeoutMs);
    const response = await open(adapter, request, target, false, deadline.signal);
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new UpstreamError({
        kind: 'malformed',
        status: response.status,
        message: 'upstream answered unreadable JSON',
      });
    }
    return adapter.parseResponse(body, target);
  } catch (error) {
    throw deadline.explain(error);
  } finally {
    deadline.clear();
  }
}

/**
 * One streaming attempt. Resolves once the upstream accepted the request (2xx headers);
 * iterating `chunks` reads the stream. A timeout, cut or in-band error surfaces as an
 * UpstreamError from the iteration.
 */
export async function streamOnce(
  adapter: ChatAdapter,
  request: ChatRequest,
  target: UpstreamTarget,
  options: CallOptions,
): Promise<UpstreamStream> {
  const deadline = new Deadline(options);
  deadline.arm(options.timeoutMs);
  let response;
  try {
    response = await open(adapter, request, target, true, deadline.signal);
  } catch (error) {
    deadline.clear();
    throw deadline.explain(error);
  }
  const translator = adapter.createStreamTranslator(target);
  const body = response.body;
  async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
    const parser = adapter.createEventSource?.() ?? new SseParser();
    try {
      for await (const bytes of body) {
        deadline.arm(options.timeoutMs);
        for (const event of parser.push(bytes)) yield* translator.onEvent(event);
      }
      for (const event of parser.end()) yield* translator.onEvent(event);
      yield* translator.onEnd();
    } catch (error) {
      throw deadline.explain(error);
    } finally {
      deadline.clear();
    }
  }
  return { chunks: chunks(), usage: () => translator.usage() };
}

async function open(
  adapter: ChatAdapter,
  request: ChatRequest,
  target: UpstreamTarget,
  stream: boolean,
  signal: AbortSignal,
) {
  const call = adapter.buildRequest(request, target, stream);
  const response = await send({ url: call.url, method: 'POST', headers: call.headers, body: call.body, signal });
  if (response.status >= 200 && response.status < 300) return response;
  const text = await response.text().catch(() => '');
  throw new UpstreamError(adapter.classifyError(response.status, response.headers, text, target.provider));
}

/**
 * The attempt's own abort signal: follows the call's signal, and fires on timeout. It tells a
 * timeout (an UpstreamError the router may retry) from the caller going away (rethrown as is).
 */
class Deadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  readonly signal = this.controller.signal;
  private readonly follow = () => this.controller.abort(this.options.signal.reason);

  constructor(private readonly options: CallOptions) {
    if (options.signal.aborted) this.controller.abort(options.signal.reason);
    else options.signal.addEventListener('abort', this.follow, { once: true });
  }

  /** (Re)starts the countdown; per stream event this only refreshes the one timer. */
  arm(ms: number): void {
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new UpstreamError({ kind: 'timeout', message: `upstream did not answer within ${ms} ms` }));
    }, ms);
  }

  /**
   * The attempt is over: stop the countdown and stop following the call's signal, so the call's
   * own end (its signal is aborted once the response is written) does not reach into a
   * finished request and build an abort error for nothing.
   */
  clear(): void {
    clearTimeout(this.timer);
    this.options.signal.removeEventListener('abort', this.follow);
  }

  explain(error: unknown): unknown {
    if (this.timedOut)
      return new UpstreamError({
        kind: 'timeout',
        message: `upstream did not answer within ${this.options.timeoutMs} ms`,
      });
    return error;
  }
}
