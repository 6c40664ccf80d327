import { startModelCall, type ModelAnswer, type ModelCallSpan } from '../observability/model-call-span.js';
import type { UpstreamTarget } from '../providers/chat-adapter.js';
import type { ChatCompletionChunk, ChatRequest, Usage } from '../providers/chat-types.js';
import type { UpstreamStream } from '../providers/upstream-call.js';
import { UpstreamError } from '../providers/upstream-failure.js';
import type { UpstreamCaller } from './router.js';

/**
 * The upstream caller with a span per model call (lambdas/observability/model-call-span.ts):
 * the deployment wraps the real caller with it (chat-deployment.ts), so the core and the router
 * know nothing of tracing. A streamed call's span lasts until its stream ends, fails or is
 * left. Where nothing records spans, each call goes straight to the caller it wraps.
 */
export function tracedUpstream(upstream: UpstreamCaller): UpstreamCaller {
  return {
    complete: (adapter, request, target, options) => {
      const span = startModelCall(target.model, () => modelCallOf(request, target));
      if (!span) return upstream.complete(adapter, request, target, options);
      return span
        .run(() => upstream.complete(adapter, request, target, options))
        .then(
          (completion) => {
            span.answered({
              responseModel: completion.model,
              ...tokensOf(completion.usage),
              finishReasons: completion.choices.map((choice) => choice.finish_reason),
            });
            return completion;
          },
          (error: unknown) => {
            span.failed(errorTypeOf(error));
            throw error;
          },
        );
    },
    stream: (adapter, request, target, options) => {
      const span = startModelCall(target.model, () => modelCallOf(request, target));
      if (!span) return upstream.stream(adapter, request, target, options);
      return span
        .run(() => upstream.stream(adapter, request, target, options))
        .then(
          (stream) => ({ chunks: new TracedChunks(stream, span), usage: stream.usage }),
          (error: unknown) => {
            span.failed(errorTypeOf(error));
            throw error;
          },
        );
    },
  };
}

/** What a model call's span may say of the request: its target and sampling figures, never its messages or key. */
function modelCallOf(request: ChatRequest, target: UpstreamTarget) {
  return {
    provider: target.provider,
    model: target.model,
    serverAddress: hostOf(target.baseUrl),
    temperature: request.temperature,
    maxTokens: request.max_tokens,
    topP: request.top_p,
  };
}

function hostOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return undefined;
  }
}

const tokensOf = (usage: Usage | undefined): ModelAnswer =>
  usage ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } : {};

/** The upstream failure's kind (`timeout`, `rate_limit`, ...), else the error's class: a few values only. */
function errorTypeOf(error: unknown): string {
  if (error instanceof UpstreamError) return error.failure.kind;
  return error instanceof Error ? error.name : '_OTHER';
}

/**
 * A streamed answer's chunks, passed through as they are, ending the span when the stream ends
 * (with the usage the provider reported and the finish reasons seen), fails, or is left.
 */
class TracedChunks implements AsyncIterableIterator<ChatCompletionChunk> {
  #inner: AsyncIterator<ChatCompletionChunk> | undefined;
  #responseModel: string | undefined;
  readonly #finishReasons = new Set<string>();

  constructor(
    private readonly stream: UpstreamStream,
    private readonly span: ModelCallSpan,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<ChatCompletionChunk>> {
    let result: IteratorResult<ChatCompletionChunk>;
    try {
      result = await this.#iterator().next();
    } catch (error) {
      this.span.failed(errorTypeOf(error), this.#answer());
      throw error;
    }
    if (result.done) this.span.answered(this.#answer());
    else this.#observe(result.value);
    return result;
  }

  async return(value?: unknown): Promise<IteratorResult<ChatCompletionChunk>> {
    this.span.abandoned(this.#answer());
    const inner = this.#iterator();
    return inner.return ? inner.return(value) : { done: true, value: undefined };
  }

  #iterator(): AsyncIterator<ChatCompletionChunk> {
    return (this.#inner ??= this.stream.chunks[Symbol.asyncIterator]());
  }

  #observe(chunk: ChatCompletionChunk): void {
    if (chunk.model) this.#responseModel ??= chunk.model;
    for (const choice of chunk.choices) if (choice.finish_reason) this.#finishReasons.add(choice.finish_reason);
  }

  #answer(): ModelAnswer {
    return {
      responseModel: this.#responseModel,
      ...tokensOf(this.stream.usage()),
      finishReasons: [...this.#finishReasons],
    };
  }
}
